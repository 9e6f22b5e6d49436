# scripts/: the helpers a newcomer runs (setup, simulation), checked locally
# without network, root or SimGrid.
# Issue 28 item 6: Debian source packages come through apt (scripts/setup/debian_source.sh).
distopo_add_script_test(debian_sources COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/debian_sources_test.sh
                        TIMEOUT 60 LABELS unit)
# Issue 28 item 5: the simulation scripts' defaults, --skip-done and help.
distopo_add_script_test(smpi_scripts COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scripts/smpi_scripts_test.sh
                        TIMEOUT 60 LABELS unit)
