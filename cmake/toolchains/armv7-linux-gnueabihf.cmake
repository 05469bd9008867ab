# Cross build for 32-bit ARMv7-A with NEON (hard float) with Debian's cross compiler
# (apt-get install g++-arm-linux-gnueabihf):
#   cmake -S . -B build-armv7 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armv7-linux-gnueabihf.cmake
# Tests run under qemu-arm (qemu-user) when it is installed.
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(OFG_CROSS_TRIPLE arm-linux-gnueabihf)
set(OFG_CROSS_QEMU qemu-arm)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard")
# -Wno-psabi: GCC notes at every std::vector<int64_t> call that GCC 7.1 changed how such arguments are passed.
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard -Wno-psabi")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
