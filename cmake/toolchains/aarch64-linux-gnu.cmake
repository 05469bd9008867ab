# Cross build for 64-bit ARM Linux with Debian's cross compiler (apt-get install g++-aarch64-linux-gnu):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Tests run under qemu-aarch64 (qemu-user) when it is installed.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(OFG_CROSS_TRIPLE aarch64-linux-gnu)
set(OFG_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
