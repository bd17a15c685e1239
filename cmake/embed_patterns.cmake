# embed_patterns.cmake: cmake -DDIR=<patterns dir> -DOUT=<file.c> -P embed_patterns.cmake
# Writes OUT, a C source for libpatrt holding the text of every DIR/*.rise (and *.tune:
# algorithms.tune, the ready-made algorithms' kernels and tables) as a byte
# array (NUL-terminated) and the table rt_builtin_patterns of {name, text, length}
# (runtime/rt_patterns.c says why). Bytes rather than a string literal: no escaping to
# get wrong, and no limit on a literal's length. Run at build time (runtime/
# CMakeLists.txt), so the output lives in the build directory and is never committed.
if(NOT DIR OR NOT OUT)
  message(FATAL_ERROR "embed_patterns.cmake: give -DDIR=... and -DOUT=...")
endif()
file(GLOB files RELATIVE ${DIR} ${DIR}/*.rise ${DIR}/*.tune)
list(SORT files)
set(body "/* Generated from patterns/ by cmake/embed_patterns.cmake: do not edit. */\n")
string(APPEND body "#include \"rt_internal.h\"\n\n")
set(table "")
set(data "")
set(ndata 0)
set(npat 0)
set(i 0)
foreach(f IN LISTS files)
  file(READ ${DIR}/${f} hex HEX)
  string(LENGTH "${hex}" nhex)
  math(EXPR len "${nhex} / 2")
  string(APPEND body "static const char text${i}[] = {\n")
  # sixteen bytes (32 hex digits) per line
  set(at 0)
  while(at LESS nhex)
    string(SUBSTRING "${hex}" ${at} 32 line)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," line "${line}")
    string(APPEND body "    ${line}\n")
    math(EXPR at "${at} + 32")
  endwhile()
  string(APPEND body "    0x00};\n\n")
  # a .rise file can be imported; another (algorithms.tune) is data for libpatrt
  if(f MATCHES "\\.rise$")
    string(APPEND table "    {\"${f}\", text${i}, ${len}},\n")
    math(EXPR npat "${npat} + 1")
  else()
    string(APPEND data "    {\"${f}\", text${i}, ${len}},\n")
    math(EXPR ndata "${ndata} + 1")
  endif()
  math(EXPR i "${i} + 1")
endforeach()
if(table STREQUAL "")
  set(table "    {0, 0, 0},\n") # C has no empty array; the count says none
endif()
if(data STREQUAL "")
  set(data "    {0, 0, 0},\n")
endif()
string(APPEND body "const LangBuiltin rt_builtin_patterns[] = {\n${table}};\n")
string(APPEND body "const int rt_nbuiltin_patterns = ${npat};\n")
string(APPEND body "const LangBuiltin rt_builtin_data[] = {\n${data}};\n")
string(APPEND body "const int rt_nbuiltin_data = ${ndata};\n")
file(WRITE ${OUT} "${body}")
