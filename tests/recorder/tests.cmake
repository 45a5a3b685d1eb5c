# Issue 30: accelerate_sim.record / python -m accelerate_sim.smoke / python -m accelerate_sim.plan on the real Accelerate 1.15.0
# (build/reference-venv: Debian's torch 1.13, golden/setup-reference) with this checkout's accelerate_sim sources; the
# compiled core is the python_package wheel when built, else accelerate_sim/_core_exe.py over accel-sim.
# Skipped (77) without the reference venv. Real gloo groups of 1-4 processes (tests/recorder/launch.py).
set(_recorder_run bash ${CMAKE_CURRENT_SOURCE_DIR}/recorder/run_with_package.sh ${PROJECT_SOURCE_DIR}
                  $<TARGET_FILE:accel-sim>)
add_test(NAME recorder_record_loaders
         COMMAND ${_recorder_run} ${CMAKE_CURRENT_SOURCE_DIR}/recorder/record_test.py loaders)
add_test(NAME recorder_record_resume
         COMMAND ${_recorder_run} ${CMAKE_CURRENT_SOURCE_DIR}/recorder/record_test.py resume)
add_test(NAME recorder_smoke COMMAND ${_recorder_run} ${CMAKE_CURRENT_SOURCE_DIR}/recorder/smoke_test.py)
add_test(NAME recorder_plan COMMAND ${_recorder_run} ${CMAKE_CURRENT_SOURCE_DIR}/recorder/plan_test.py)
set_tests_properties(recorder_record_loaders recorder_record_resume recorder_smoke recorder_plan
                     PROPERTIES LABELS recorder SKIP_RETURN_CODE 77 TIMEOUT 180)
# Issue 50: docs/recording.md's flow run verbatim on 2 local processes (python -m accelerate_sim.launch), a second run into
# the same folder, plan leaving nothing, the world warning under `accelerate launch --cpu`, the launcher's exit codes.
add_test(NAME recorder_recording_docs COMMAND ${_recorder_run} ${CMAKE_CURRENT_SOURCE_DIR}/recorder/recording_docs_test.py)
set_tests_properties(recorder_recording_docs PROPERTIES LABELS "recorder;docs" SKIP_RETURN_CODE 77 TIMEOUT 300)
# Each of these starts gloo groups whose rendezvous port is picked free just before the ranks bind it: two groups
# starting at once can pick the same port and join each other (a rank then aborts). One at a time.
set_tests_properties(recorder_record_loaders recorder_record_resume recorder_smoke recorder_plan recorder_recording_docs
                     PROPERTIES RESOURCE_LOCK gloo_rendezvous_port)
