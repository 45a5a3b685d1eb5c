// Starts this same program as N local ranks with torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR=127.0.0.1, MASTER_PORT = a free port), so the example runs without torchrun; under torchrun the
// variables are already set and no launcher runs.
#pragma once

// Returns 0 when every rank exits 0; when one fails the others are stopped and 1 is returned.
int launch_local_ranks(int nproc, char** argv);
