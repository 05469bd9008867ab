# The size budget: the stripped shared library must stay within 1.5 MiB (also in cross builds,
# with the target's strip). OFG_SIZE_BUDGET overrides the limit in bytes.
if(OFG_SANITIZE OR OFG_FUZZ)
  return()
endif()
set(OFG_SIZE_BUDGET 1572864 CACHE STRING "Budget in bytes for the stripped libonnxforge.so")
set(_ofg_strip "${CMAKE_STRIP}")
if(NOT _ofg_strip)
  set(_ofg_strip strip)
endif()
add_test(NAME library_size_budget
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/size/check_size.sh $<TARGET_FILE:onnxforge> ${_ofg_strip} ${OFG_SIZE_BUDGET})
set_tests_properties(library_size_budget PROPERTIES LABELS size TIMEOUT 60)
