# packaging/install_configured.cmake: run by `cmake --install` (install(SCRIPT)
# in packaging/CMakeLists.txt) with CMAKE_INSTALL_PREFIX the install's own
# prefix (--prefix DIR, or /usr for the .deb). Writes the systemd unit, its
# default file, the configuration file (brigaded.conf) and the man pages with that prefix's paths and installs them.
# Under /usr the default file is /etc/default/brigaded and the configuration
# /etc/brigade/brigaded.conf; under any other prefix, PREFIX/etc/default/brigaded
# and PREFIX/etc/brigade/brigaded.conf (nothing outside the prefix).
set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix STREQUAL "/usr")
  set(etc /etc)
else()
  set(etc "${prefix}/etc")
endif()
set(CMAKE_INSTALL_FULL_BINDIR "${prefix}/${BRIGADE_BINDIR}")
set(CMAKE_INSTALL_FULL_DATADIR "${prefix}/${BRIGADE_DATADIR}")
set(BRIGADE_DEFAULT_FILE "${etc}/default/brigaded")
set(BRIGADE_CONFIG_FILE "${etc}/brigade/brigaded.conf")
set(BRIGADE_UNIT_FULL_DIR "${prefix}/lib/systemd/system")

file(MAKE_DIRECTORY "${BRIGADE_OUTPUT_DIR}")
configure_file("${BRIGADE_SOURCE_DIR}/brigaded.service.in" "${BRIGADE_OUTPUT_DIR}/brigaded.service" @ONLY)
configure_file("${BRIGADE_SOURCE_DIR}/brigaded.1.in" "${BRIGADE_OUTPUT_DIR}/brigaded.1" @ONLY)
configure_file("${BRIGADE_SOURCE_DIR}/brigade.1.in" "${BRIGADE_OUTPUT_DIR}/brigade.1" @ONLY)
file(INSTALL DESTINATION "${BRIGADE_UNIT_FULL_DIR}" TYPE FILE
     FILES "${BRIGADE_OUTPUT_DIR}/brigaded.service")
file(INSTALL DESTINATION "${prefix}/${BRIGADE_MANDIR}/man1" TYPE FILE
     FILES "${BRIGADE_OUTPUT_DIR}/brigaded.1" "${BRIGADE_OUTPUT_DIR}/brigade.1")
file(INSTALL DESTINATION "${etc}/default" TYPE FILE RENAME brigaded
     FILES "${BRIGADE_SOURCE_DIR}/brigaded.default")
file(INSTALL DESTINATION "${etc}/brigade" TYPE FILE
     FILES "${BRIGADE_SOURCE_DIR}/brigaded.conf")
