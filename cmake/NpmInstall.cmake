# cmake/NpmInstall.cmake: installs a folder's npm packages when they are
# missing or its package-lock.json changed. Run as a script:
#
#   cmake -DNPM=/usr/bin/npm -DDIR=<folder with package.json>
#         [-DCHECK=<a file the install makes>] -P NpmInstall.cmake
#
# `npm ci` with a package-lock.json (exactly the locked versions), else
# `npm install`. The lock's SHA-256 is kept in node_modules/.brigade-lock
# (dot files are never served by brigaded), so a changed lock reinstalls;
# so does a missing node_modules or a missing CHECK file (e.g. the web
# client's vendor/ copy made by its postinstall script).
cmake_minimum_required(VERSION 3.25)
foreach(variable NPM DIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "NpmInstall.cmake: -D${variable}=... is required")
  endif()
endforeach()

set(lock "${DIR}/package-lock.json")
set(stamp "${DIR}/node_modules/.brigade-lock")
if(EXISTS "${lock}")
  file(SHA256 "${lock}" wanted)
  set(command ci)
else()
  file(SHA256 "${DIR}/package.json" wanted)
  set(command install)
endif()

set(have "")
if(EXISTS "${stamp}")
  file(READ "${stamp}" have)
endif()
if(have STREQUAL wanted AND IS_DIRECTORY "${DIR}/node_modules"
   AND (NOT DEFINED CHECK OR EXISTS "${CHECK}"))
  return()
endif()

message(STATUS "npm ${command} in ${DIR}")
execute_process(COMMAND "${NPM}" ${command} --no-audit --no-fund
                WORKING_DIRECTORY "${DIR}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "npm ${command} failed in ${DIR} (status ${status}); "
                      "is the npm registry reachable?")
endif()
file(WRITE "${stamp}" "${wanted}")
