# Cross build for 32-bit ARMv7-A with NEON (hard float) with Debian's cross compiler
# (apt-get install g++-arm-linux-gnueabihf):
#   cmake -S . -B build-armv7 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armv7-linux-gnueabihf.cmake
# Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(OFG_CROSS_TRIPLE arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${OFG_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${OFG_CROSS_TRIPLE}-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard")
# -Wno-psabi: GCC notes at every std::vector<int64_t> call that GCC 7.1 changed how such arguments are passed.
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard -Wno-psabi")
set(CMAKE_STRIP ${OFG_CROSS_TRIPLE}-strip CACHE FILEPATH "strip for the target")
set(CMAKE_FIND_ROOT_PATH /usr/${OFG_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(OFG_QEMU qemu-arm)
  if(OFG_QEMU)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${OFG_QEMU} -L /usr/${OFG_CROSS_TRIPLE})
  endif()
endif()
