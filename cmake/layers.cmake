# layers.cmake - builds one static library per layer from the table in
# cmake/layers.txt ([layers]), and the public face of sim/ from its [api]
# rows.
#
# Each layer's include path holds a staging folder per visible layer: a
# symbolic link to the layer's source folder, placed so that
# "sim/memsys/l2.h" resolves only for layers allowed to see sim/memsys/. The
# pseudo-layer `api` stages just the public headers of sim/, one link each. So
# an include that crosses the table fails to compile instead of waiting for a
# review.

set(WS_LAYER_TABLE ${CMAKE_SOURCE_DIR}/cmake/layers.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${WS_LAYER_TABLE})

# The rows of one [section] of cmake/layers.txt, each as its cells joined by
# '|' without the blanks around them.
function(ws_layer_rows section out)
  file(STRINGS ${WS_LAYER_TABLE} lines)
  set(inside OFF)
  set(rows "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^\\[(.*)\\]$")
      string(COMPARE EQUAL "${CMAKE_MATCH_1}" "${section}" inside)
    elseif(inside AND line MATCHES ";")
      message(FATAL_ERROR "cmake/layers.txt: no ';' in a row: ${line}")
    elseif(inside AND line MATCHES "^[a-z]")
      string(REGEX REPLACE " *\\| *" "|" line "${line}")
      list(APPEND rows "${line}")
    endif()
  endforeach()
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()

function(ws_stage_link target link)
  get_filename_component(parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${link})
    file(CREATE_LINK ${target} ${link} SYMBOLIC)
  endif()
endfunction()

# The staging folder is named after the tables' contents: a changed table
# gets a fresh folder, so no link from an older table survives in it (and
# nothing is ever deleted through a link).
ws_layer_rows(api api_rows)
ws_layer_rows(layers layer_rows)
string(MD5 stage_id "${api_rows}${layer_rows}")
set(WS_STAGE ${CMAKE_BINARY_DIR}/include-${stage_id})

# The public headers of sim/, staged as the layer `api`.
foreach(row IN LISTS api_rows)
  string(REGEX REPLACE "\\|.*" "" header "${row}")
  if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${header})
    message(FATAL_ERROR "cmake/layers.txt names a public header that does not exist: ${header}")
  endif()
  ws_stage_link(${CMAKE_SOURCE_DIR}/${header} ${WS_STAGE}/api/${header})
endforeach()

# WS_LAYERS: the layer names in table order; WS_LAYER_DIR_<name>: its folder;
# WS_LAYER_DEPS_<name>: what it may include.
set(WS_LAYERS "")
foreach(row IN LISTS layer_rows)
  string(REPLACE "|" ";" cells "${row}")
  list(GET cells 0 name)
  list(GET cells 1 dir)
  list(GET cells 2 deps)
  string(REGEX REPLACE "/$" "" dir "${dir}")
  separate_arguments(deps UNIX_COMMAND "${deps}")
  list(APPEND WS_LAYERS ${name})
  set(WS_LAYER_DIR_${name} ${dir})
  set(WS_LAYER_DEPS_${name} ${deps})
  ws_stage_link(${CMAKE_SOURCE_DIR}/${dir} ${WS_STAGE}/${name}/${dir})
endforeach()

# ws_layer(NAME [EXTRA sources...] [LIBS libraries...] [EXCLUDE files...])
# builds library ws_<NAME> from the .c files of its folder.
function(ws_layer name)
  cmake_parse_arguments(L "" "" "EXTRA;LIBS;EXCLUDE" ${ARGN})
  set(dir ${WS_LAYER_DIR_${name}})
  file(GLOB src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.c)
  foreach(x IN LISTS L_EXCLUDE)
    list(REMOVE_ITEM src ${CMAKE_SOURCE_DIR}/${dir}/${x})
  endforeach()
  add_library(ws_${name} STATIC ${src} ${L_EXTRA})
  ws_layer_includes(ws_${name} ${name})
  foreach(dep IN LISTS WS_LAYER_DEPS_${name})
    if(dep STREQUAL "api")
      target_link_libraries(ws_${name} PUBLIC ws_host)
    else()
      target_link_libraries(ws_${name} PUBLIC ws_${dep})
    endif()
  endforeach()
  target_link_libraries(ws_${name} PUBLIC ${L_LIBS})
endfunction()

# The include path of a target built from layer `name`'s sources.
function(ws_layer_includes target name)
  target_include_directories(${target} PRIVATE ${WS_STAGE}/${name})
  foreach(dep IN LISTS WS_LAYER_DEPS_${name})
    target_include_directories(${target} PRIVATE ${WS_STAGE}/${dep})
  endforeach()
endfunction()
