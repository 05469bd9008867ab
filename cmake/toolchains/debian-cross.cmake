# The part the toolchain files for Debian's cross compilers share; they set OFG_CROSS_TRIPLE (the
# compiler prefix, also the folder of the target's libc under /usr) and OFG_CROSS_QEMU (the
# qemu-user program that runs the target's binaries) and include this file.
# Programs run on the build machine (protoc, python) come from the host; headers and libraries
# from the target's root. Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR) when found.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${OFG_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${OFG_CROSS_TRIPLE}-g++)
set(CMAKE_STRIP ${OFG_CROSS_TRIPLE}-strip CACHE FILEPATH "strip for the target")
set(CMAKE_FIND_ROOT_PATH /usr/${OFG_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(OFG_QEMU ${OFG_CROSS_QEMU})
  if(OFG_QEMU)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${OFG_QEMU} -L /usr/${OFG_CROSS_TRIPLE})
  endif()
endif()
