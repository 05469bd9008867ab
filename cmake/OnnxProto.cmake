# Finds protoc, protobuf-lite and the onnx.proto installed by the onnx package, and compiles the
# schema for the lite runtime. Nothing of the schema lives in this repository.
# protoc and onnx.proto are used on the build machine only. The library needs no protobuf at all;
# protobuf-lite for the target is needed only by the two gtest files that parse saved models with
# the generated classes: a cross build without a target protobuf-lite leaves them out
# (OFG_HAVE_PROTOBUF_LITE OFF).
find_program(OFG_PROTOC protoc)
if(NOT OFG_PROTOC)
  message(FATAL_ERROR "protoc not found: install protobuf-compiler (apt-get install protobuf-compiler)")
endif()
find_library(OFG_PROTOBUF_LITE_LIBRARY NAMES protobuf-lite)
find_path(OFG_PROTOBUF_INCLUDE_DIR google/protobuf/message_lite.h)
if(OFG_PROTOBUF_LITE_LIBRARY AND OFG_PROTOBUF_INCLUDE_DIR)
  set(OFG_HAVE_PROTOBUF_LITE ON)
elseif(CMAKE_CROSSCOMPILING)
  set(OFG_HAVE_PROTOBUF_LITE OFF)
  message(STATUS "onnxforge: no protobuf-lite for the target: the tests that parse saved models "
                 "with the generated classes (bad_input_test, roundtrip_test) are left out")
else()
  message(FATAL_ERROR "protobuf-lite not found: install libprotobuf-dev (apt-get install libprotobuf-dev)")
endif()
set(OFG_ONNX_PROTO "" CACHE FILEPATH "onnx.proto from the onnx package")
if(NOT OFG_ONNX_PROTO)
  # A file of the build machine, also when cross compiling.
  find_file(OFG_ONNX_PROTO_FOUND onnx/onnx.proto PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH)
  set(OFG_ONNX_PROTO "${OFG_ONNX_PROTO_FOUND}")
endif()
if(NOT OFG_ONNX_PROTO OR NOT EXISTS "${OFG_ONNX_PROTO}")
  message(FATAL_ERROR "onnx.proto not found: install libonnx-dev (apt-get install libonnx-dev) "
                      "or pass -DOFG_ONNX_PROTO=/path/to/onnx.proto")
endif()
message(STATUS "ONNX schema: ${OFG_ONNX_PROTO}")

# The generated classes go into their own namespace (ofg_onnx) so that a process that also links
# libonnx never sees two definitions of onnx::ModelProto.
set(OFG_PROTO_DIR ${CMAKE_CURRENT_BINARY_DIR}/proto)
file(MAKE_DIRECTORY ${OFG_PROTO_DIR})
file(READ "${OFG_ONNX_PROTO}" _ofg_proto_text)
string(REPLACE "package onnx;" "package ofg_onnx;" _ofg_proto_text "${_ofg_proto_text}")
file(WRITE ${OFG_PROTO_DIR}/ofg_onnx.proto.tmp "${_ofg_proto_text}")
configure_file(${OFG_PROTO_DIR}/ofg_onnx.proto.tmp ${OFG_PROTO_DIR}/ofg_onnx.proto COPYONLY)
set(OFG_PROTO_SRCS ${OFG_PROTO_DIR}/ofg_onnx.pb.cc)
add_custom_command(
  OUTPUT ${OFG_PROTO_DIR}/ofg_onnx.pb.cc ${OFG_PROTO_DIR}/ofg_onnx.pb.h
  COMMAND ${OFG_PROTOC} --cpp_out=lite:${OFG_PROTO_DIR} -I${OFG_PROTO_DIR} ${OFG_PROTO_DIR}/ofg_onnx.proto
  DEPENDS ${OFG_PROTO_DIR}/ofg_onnx.proto
  COMMENT "protoc --cpp_out=lite: onnx.proto")
add_custom_command(
  OUTPUT ${OFG_PROTO_DIR}/ofg_onnx_fields.h
  COMMAND ${CMAKE_COMMAND} -DIN=${OFG_PROTO_DIR}/ofg_onnx.pb.h -DOUT=${OFG_PROTO_DIR}/ofg_onnx_fields.h
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/FieldNumbers.cmake
  DEPENDS ${OFG_PROTO_DIR}/ofg_onnx.pb.h ${CMAKE_CURRENT_SOURCE_DIR}/cmake/FieldNumbers.cmake
  COMMENT "field numbers of onnx.proto")
set(OFG_PROTO_INCLUDE_DIR ${OFG_PROTO_DIR})
# The library's sources include only the field numbers (ofg_onnx_fields.h), not the generated
# classes or any protobuf header.
add_custom_target(onnxforge_schema_header DEPENDS ${OFG_PROTO_DIR}/ofg_onnx_fields.h)
