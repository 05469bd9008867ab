# The Python package's pytest suite, against the library of this build. It needs a python3 with
# pytest and numpy (Debian: python3-pytest, python3-numpy); without them it is skipped (exit 77).
# Not under the sanitizers: a Python process cannot load an ASan-instrumented library.
if(OFG_SANITIZE)
  return()
endif()
include(${CMAKE_SOURCE_DIR}/cmake/TestPython.cmake)

add_test(NAME python_binding
  COMMAND sh -c "\"$0\" -c 'import pytest, numpy' 2>/dev/null || { echo 'no pytest/numpy for '$0': skipped'; exit 77; }; exec \"$0\" -m pytest -q -rs -p no:cacheprovider \"$1\""
          ${OFG_PYTHON3} ${CMAKE_SOURCE_DIR}/bindings/python/tests
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(python_binding PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77
  ENVIRONMENT "ONNXFORGE_LIBRARY=$<TARGET_FILE:onnxforge>;PYTHONPATH=${CMAKE_SOURCE_DIR}/bindings/python;ONNXFORGE_DATA=${OFG_DATA_DIR};PYTHONDONTWRITEBYTECODE=1")

# pip install ./bindings/python into a fresh venv of a non-Debian Python when there is one, the
# library built by the package's own backend (a few minutes: label slow), then used with no
# environment variable; also compares the version of header, CLI, pkg-config and wheel.
add_test(NAME python_pip_install
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/python_pip_install.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(python_pip_install PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS slow)
