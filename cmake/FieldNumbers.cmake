# cmake -DIN=ofg_onnx.pb.h -DOUT=ofg_onnx_fields.h -P FieldNumbers.cmake
#
# Writes the field numbers of the generated schema header IN, and the values of its top-level
# enums, as plain constants: one struct per message, in namespace ofg_onnx_fields. The library
# reads and writes the wire format itself and needs nothing else from the schema; including the
# generated header would pull in protobuf's headers and, through them, <iostream>, whose static
# initialisation then ran in every process that loads the library.
file(STRINGS "${IN}" lines)
set(structs "")
set(enums "")
set(open FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^class ([A-Za-z0-9_]+) final :")
    if(open)
      string(APPEND structs "};\n")
    endif()
    string(APPEND structs "struct ${CMAKE_MATCH_1} {\n")
    set(open TRUE)
  elseif(open AND line MATCHES "^    (k[A-Za-z0-9_]+FieldNumber) = ([0-9]+),$")
    string(APPEND structs "  static constexpr int ${CMAKE_MATCH_1} = ${CMAKE_MATCH_2};\n")
  elseif(line MATCHES "^  ([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+) = (-?[0-9]+),?$")
    string(APPEND enums "constexpr int ${CMAKE_MATCH_1} = ${CMAKE_MATCH_2};\n")
  endif()
endforeach()
if(open)
  string(APPEND structs "};\n")
endif()
if(NOT structs MATCHES "kIrVersionFieldNumber" OR NOT enums MATCHES "TensorProto_DataLocation_EXTERNAL")
  message(FATAL_ERROR "${IN}: no field numbers found (unexpected protoc output)")
endif()
set(text "// Generated from ofg_onnx.pb.h by cmake/FieldNumbers.cmake: field numbers and enum values.\n")
string(APPEND text "#pragma once\n\nnamespace ofg_onnx_fields {\n\n${enums}\n${structs}\n}  // namespace ofg_onnx_fields\n")
# Rewritten only when it changes, so the library is not rebuilt for nothing.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
