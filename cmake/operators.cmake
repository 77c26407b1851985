# What an operator installs beside the services (docs/operations.md,
# "Installing"): the tools, man pages generated from each program's CLI11
# --help and --version by help2man, hardened systemd units and the example
# configs. Included after server/ and tools/, so their targets exist.
include(GNUInstallDirs)

# Services go to man8 (system administration), tools to man1.
set(P2B_SERVICES p2b-shuffler p2b-analyzer p2b-vfl-pmg p2b-vfl-party p2b-vfl-ap
  p2b-fclub-local p2b-fclub-global p2b-relay)
set(P2B_OPERATOR_TOOLS p2b-keygen p2b-keylist p2b-codebook p2b-sim p2b-device p2b-audit)
set(P2B_SUBCOMMAND_TOOLS p2b-device)
# The long-running services that get a unit (the others: docs/operations.md).
# (p2b-vfl-pmg is a one-shot program: no unit.)
set(P2B_UNITS p2b-shuffler p2b-analyzer p2b-relay p2b-fclub-global p2b-fclub-local
  p2b-vfl-party p2b-vfl-ap)

# p2b-demo is left out: it runs the build tree's service binaries by their
# build paths, so it is a developer's program, not an installed one.
foreach(tool p2b-codebook p2b-sim p2b-device)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# Man pages. help2man (Debian's) turns the --help and --version CLI11 prints
# from the very option definitions into a page, so a page cannot drift from
# the program; a generator of our own walking CLI::App would duplicate what
# CLI11's formatter already does. What --help cannot say (EXAMPLES, FILES,
# SEE ALSO, EXIT STATUS) comes from packaging/man/*.h2m (its README.md).
find_program(P2B_HELP2MAN help2man)
option(P2B_MAN_PAGES "Generate man pages with help2man" ON)
if(P2B_MAN_PAGES AND NOT P2B_HELP2MAN)
  message(WARNING "help2man not found: no man pages (apt-get install help2man)")
endif()
# The NAME line of each page (help2man would write "manual page for ...").
set(P2B_MAN_NAME_p2b-shuffler "thresholds, shuffles and batches devices' sealed reports (P2B)")
set(P2B_MAN_NAME_p2b-analyzer "opens shuffled batches and signs the private model (P2B)")
set(P2B_MAN_NAME_p2b-vfl-pmg "draws and seals the vertical federation's orthogonal mask (O3M)")
set(P2B_MAN_NAME_p2b-vfl-party "passive party of vertical federation (O3M)")
set(P2B_MAN_NAME_p2b-vfl-ap "active party of vertical federation (O3M)")
set(P2B_MAN_NAME_p2b-fclub-local "FCLUB local server")
set(P2B_MAN_NAME_p2b-fclub-global "FCLUB global server")
set(P2B_MAN_NAME_p2b-relay "P-FCB relay of sealed postings")
set(P2B_MAN_NAME_p2b-keygen "makes a p2b deployment's key pairs")
set(P2B_MAN_NAME_p2b-keylist "signs and shows shuffler-key lists")
set(P2B_MAN_NAME_p2b-codebook "trains the P2B encoder's k-means codebook")
set(P2B_MAN_NAME_p2b-sim "runs the paper's experiments for every protocol")
set(P2B_MAN_NAME_p2b-device "runs devices through the C API against running services")
set(P2B_MAN_NAME_p2b-audit "measures each privacy mechanism's empirical epsilon lower bound")
set(P2B_MAN_FILES)
if(P2B_MAN_PAGES AND P2B_HELP2MAN)
  foreach(prog IN LISTS P2B_SERVICES P2B_OPERATOR_TOOLS)
    if(NOT TARGET ${prog})
      continue()
    endif()
    if(prog IN_LIST P2B_SERVICES)
      set(section 8)
    else()
      set(section 1)
    endif()
    set(page ${CMAKE_BINARY_DIR}/man/man${section}/${prog}.${section})
    # A program with subcommands documents them all under --help-all.
    set(help_option --help)
    if(prog IN_LIST P2B_SUBCOMMAND_TOOLS)
      set(help_option --help-all)
    endif()
    # The long-running services exit as server/common/exit_codes.hpp says;
    # the one-shot programs (tools, p2b-vfl-pmg) as a tool does.
    set(man_dir ${PROJECT_SOURCE_DIR}/packaging/man)
    if(prog IN_LIST P2B_UNITS)
      set(exit_status ${man_dir}/service-exit-status.h2m)
    else()
      set(exit_status ${man_dir}/tool-exit-status.h2m)
    endif()
    # --no-discard-stderr: a program that printed help on stderr would give
    # an empty page; ours print on stdout, and an empty page fails below.
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man/man${section}
      COMMAND ${P2B_HELP2MAN} --no-info --no-discard-stderr --section=${section}
              --source=p2b --manual=p2b "--name=${P2B_MAN_NAME_${prog}}" --output=${page}
              --help-option=${help_option}
              --include=${man_dir}/${prog}.h2m --include=${exit_status}
              $<TARGET_FILE:${prog}>
      DEPENDS ${prog} ${man_dir}/${prog}.h2m ${exit_status}
      COMMENT "help2man ${prog}.${section}"
      VERBATIM)
    list(APPEND P2B_MAN_FILES ${page})
    install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(p2b-man-pages ALL DEPENDS ${P2B_MAN_FILES})
endif()

# systemd units: one template per service, the shared hardening spliced in.
# Two copies: the build tree's runs the built binary, so `systemd-analyze
# verify` checks an ExecStart= that exists (tests/test_units.sh); the
# installed one runs PREFIX/bin/p2b-X, with PREFIX the one `cmake --install
# --prefix` is given, hence written at install time.
file(READ ${PROJECT_SOURCE_DIR}/packaging/systemd/common.conf.in P2B_UNIT_COMMON)
string(STRIP "${P2B_UNIT_COMMON}" P2B_UNIT_COMMON)
# Relative to the prefix (Debian's /lib/systemd/system is /usr/lib/... after
# the usr merge), so a staged or temporary prefix gets them too.
set(P2B_SYSTEMD_UNITDIR "lib/systemd/system" CACHE STRING "systemd unit directory")
set(P2B_BUILD_UNITS)
foreach(unit IN LISTS P2B_UNITS)
  if(NOT TARGET ${unit})
    continue()
  endif()
  set(template ${PROJECT_SOURCE_DIR}/packaging/systemd/${unit}.service.in)
  set(P2B_UNIT_EXEC "$<TARGET_FILE:${unit}>")
  configure_file(${template} ${CMAKE_BINARY_DIR}/systemd/build/${unit}.service.gen @ONLY)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/systemd/build/${unit}.service
    INPUT ${CMAKE_BINARY_DIR}/systemd/build/${unit}.service.gen)
  list(APPEND P2B_BUILD_UNITS ${CMAKE_BINARY_DIR}/systemd/build/${unit}.service)
  # The installed copy: ExecStart stays a placeholder until install time.
  set(P2B_UNIT_EXEC "@P2B_UNIT_EXEC@")
  set(staged ${CMAKE_BINARY_DIR}/systemd/install/${unit}.service.in)
  configure_file(${template} ${staged} @ONLY)
  install(CODE "
    set(P2B_UNIT_EXEC \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${unit}\")
    configure_file(\"${staged}\" \"${CMAKE_BINARY_DIR}/systemd/install/${unit}.service\" @ONLY)
    file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${P2B_SYSTEMD_UNITDIR}\" TYPE FILE
         FILES \"${CMAKE_BINARY_DIR}/systemd/install/${unit}.service\")")
endforeach()

# `cmake --build B --target p2b-installable` builds exactly what
# `cmake --install B` copies (scripts/getting-started-test.sh).
add_custom_target(p2b-installable)
foreach(t p2b p2b_shared ${P2B_SERVICES} ${P2B_OPERATOR_TOOLS} p2b-man-pages)
  if(TARGET ${t})
    add_dependencies(p2b-installable ${t})
  endif()
endforeach()

# Example configs (TOML), for /etc/p2b/*.toml.
file(GLOB P2B_EXAMPLE_CONFIGS ${PROJECT_SOURCE_DIR}/examples/*.conf)
install(FILES ${P2B_EXAMPLE_CONFIGS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

if(P2B_BUILD_TESTS)
  add_test(NAME operators.units COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_units.sh
    ${P2B_BUILD_UNITS})
  set_tests_properties(operators.units PROPERTIES PASS_REGULAR_EXPRESSION "ok: units"
    SKIP_RETURN_CODE 77)
  # Every service starts from its example config (a dry start on loopback).
  foreach(pair shuffler-sqlite:p2b-shuffler analyzer-sqlite:p2b-analyzer relay:p2b-relay
          fclub-global:p2b-fclub-global fclub-local:p2b-fclub-local vfl-party:p2b-vfl-party
          vfl-ap:p2b-vfl-ap)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 example)
    list(GET pair 1 service)
    add_test(NAME operators.example_config.${example}
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_example_configs.sh ${example}
              $<TARGET_FILE:${service}> ${PROJECT_SOURCE_DIR}/examples/${example}.conf
              $<TARGET_FILE:p2b-keygen> $<TARGET_FILE:p2b-codebook> $<TARGET_FILE:p2b-vfl-pmg>
              ${CMAKE_CURRENT_BINARY_DIR}/example-config-tests/${example})
    set_tests_properties(operators.example_config.${example} PROPERTIES
      PASS_REGULAR_EXPRESSION "ok: ${example} starts from")
    # The same from the unit's ExecStart=, credentials and state directory.
    if(${service} IN_LIST P2B_UNITS)
      add_test(NAME operators.unit_exec.${example}
        COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_example_configs.sh ${example}
                $<TARGET_FILE:${service}> ${PROJECT_SOURCE_DIR}/examples/${example}.conf
                $<TARGET_FILE:p2b-keygen> $<TARGET_FILE:p2b-codebook> $<TARGET_FILE:p2b-vfl-pmg>
                ${CMAKE_CURRENT_BINARY_DIR}/unit-exec-tests/${example}
                ${CMAKE_BINARY_DIR}/systemd/build/${service}.service)
      set_tests_properties(operators.unit_exec.${example} PROPERTIES
        PASS_REGULAR_EXPRESSION "ok: ${example} starts from ${service}.service")
    endif()
  endforeach()
  # A wrong config file: exit 2 and one printable line naming FILE:LINE and
  # the key, from a service and from a tool.
  if(TARGET p2b-relay AND TARGET p2b-codebook)
    add_test(NAME operators.config_errors
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_config_errors.sh $<TARGET_FILE:p2b-relay>
              $<TARGET_FILE:p2b-codebook> ${CMAKE_CURRENT_BINARY_DIR}/config-error-tests)
    set_tests_properties(operators.config_errors PROPERTIES
      PASS_REGULAR_EXPRESSION "ok: config errors")
  endif()
  # Every program's --help: one usage line, a value name for every option.
  set(p2b_help_programs)
  foreach(prog IN LISTS P2B_SERVICES P2B_OPERATOR_TOOLS)
    if(TARGET ${prog})
      list(APPEND p2b_help_programs $<TARGET_FILE:${prog}>)
    endif()
  endforeach()
  add_test(NAME operators.help_format
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_help_format.sh ${p2b_help_programs})
  set_tests_properties(operators.help_format PROPERTIES PASS_REGULAR_EXPRESSION "ok: help format")
  if(P2B_MAN_FILES)
    add_test(NAME operators.man_pages
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_man_pages.sh ${P2B_MAN_FILES})
    set_tests_properties(operators.man_pages PROPERTIES PASS_REGULAR_EXPRESSION "ok: man pages")
  endif()
endif()
