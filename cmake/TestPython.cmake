# OFG_PYTHON3: the python3 the tests run the Python package with (one that has pytest and numpy
# when there is one).
if(NOT OFG_PYTHON3)
  # Debian's interpreter first: a python3 earlier on PATH may be a build without its packages.
  set(OFG_PY_FOUND "")
  foreach(candidate /usr/bin/python3 python3)
    find_program(OFG_PY_CANDIDATE NAMES ${candidate} NO_CACHE)
    if(OFG_PY_CANDIDATE AND NOT OFG_PY_FOUND)
      execute_process(COMMAND ${OFG_PY_CANDIDATE} -c "import pytest, numpy"
        RESULT_VARIABLE OFG_PY_OK OUTPUT_QUIET ERROR_QUIET)
      if(OFG_PY_OK EQUAL 0)
        set(OFG_PY_FOUND "${OFG_PY_CANDIDATE}")
      endif()
    endif()
    unset(OFG_PY_CANDIDATE)
  endforeach()
  if(NOT OFG_PY_FOUND)
    set(OFG_PY_FOUND python3)
  endif()
  set(OFG_PYTHON3 "${OFG_PY_FOUND}" CACHE STRING "python3 with pytest and numpy, for the Python tests")
endif()
