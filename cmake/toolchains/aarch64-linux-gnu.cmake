# Cross build for 64-bit ARM Linux with Debian's cross compiler (apt-get install g++-aarch64-linux-gnu):
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Programs run on the build machine (protoc, python) come from the host; headers and libraries
# from the target's sysroot. Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(OFG_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${OFG_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${OFG_CROSS_TRIPLE}-g++)
set(CMAKE_STRIP ${OFG_CROSS_TRIPLE}-strip CACHE FILEPATH "strip for the target")
set(CMAKE_FIND_ROOT_PATH /usr/${OFG_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(OFG_QEMU qemu-aarch64)
  if(OFG_QEMU)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${OFG_QEMU} -L /usr/${OFG_CROSS_TRIPLE})
  endif()
endif()
