// core/device_mesh: ParallelismConfig's mesh and Accelerate's rank arithmetic. The expected values are what the real
// Accelerate 1.15 did on gloo ranks (golden/cases-torch2/mesh-*), not re-derived from the code under test.
#include "core/device_mesh.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace accel {
namespace {

TEST(DeviceMesh, ParallelismConfigOrdersDimsAndDropsSizeOne) {
  ParallelismConfig pc;
  pc.tp = 2;
  pc.dp_shard = 2;
  pc.dp_replicate = 2;
  const auto mesh = build_device_mesh(pc);
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh->dims, (std::vector<MeshDim>{{"dp_replicate", 2}, {"dp_shard", 2}, {"tp", 2}}));
  pc = {};
  pc.tp = 2;
  pc.cp = 3;
  EXPECT_EQ(build_device_mesh(pc)->dims, (std::vector<MeshDim>{{"cp", 3}, {"tp", 2}}));
  EXPECT_FALSE(build_device_mesh(ParallelismConfig{}));
  pc = {};
  pc.sp = 2;
  pc.dp_shard = 2;
  EXPECT_FALSE(build_device_mesh(pc)) << "DeepSpeed's sequence parallelism: Accelerate builds no mesh";
}

TEST(DeviceMesh, ValidateRaisesAccelerateErrors) {
  ParallelismConfig pc;
  pc.dp_shard = 2;
  pc.tp = 2;
  EXPECT_NO_THROW(validate(pc, 4));
  try {
    validate(pc, 8);
    FAIL();
  } catch (const AccelerateError& e) {
    EXPECT_EQ(e.where(), "Accelerator");
    EXPECT_NE(e.message().find("ParallelismConfig total_size (4) does not match num_processes (8)"), std::string::npos);
  }
  pc = {};
  pc.dp_replicate = 2;
  pc.tp = 2;
  EXPECT_THROW(validate(pc, 4), AccelerateError);  // TP with pure DDP
  pc = {};
  pc.cp = 2;
  pc.sp = 2;
  EXPECT_THROW(validate(pc, 4), AccelerateError);
}

TEST(DeviceMesh, CoordinatesAreRowMajor) {
  const DeviceMesh mesh{{{"dp_shard", 2}, {"tp", 4}}};
  EXPECT_EQ(mesh.coordinates(5), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(mesh.size(), 8);
}

// Recorded: mesh-fsdp2-tp4-map (ranks 0-3 and 4-7 share), mesh-cp2-tp2-map (every rank everything).
TEST(DeviceMesh, LoaderProcessDividesByTpTimesCp) {
  const DeviceMesh fsdp_tp{{{"dp_shard", 2}, {"tp", 4}}};
  EXPECT_EQ(mesh_loader_process(fsdp_tp, 8, 5, false), (LoaderProcess{2, 1}));
  EXPECT_EQ(mesh_loader_process(fsdp_tp, 8, 3, false), (LoaderProcess{2, 0}));
  const DeviceMesh cp_tp{{{"cp", 2}, {"tp", 2}}};
  EXPECT_EQ(mesh_loader_process(cp_tp, 4, 3, false).num_processes, 1);
  // DeepSpeed's branch: both divided by tp alone.
  const DeviceMesh dp_tp{{{"dp", 2}, {"tp", 3}}};
  EXPECT_EQ(mesh_loader_process(dp_tp, 6, 4, true), (LoaderProcess{2, 1}));
}

// Recorded: mesh-tp2-fsdp2-map: ranks 0,1 get one shard and 2,3 the other, while the tp groups are {0,2} and {1,3}.
TEST(DeviceMesh, TpOutermostSplitsItsGroups) {
  const DeviceMesh mesh{{{"tp", 2}, {"dp_shard", 2}}};
  const MeshDataRanks m = mesh_data_ranks(mesh, false, false, false);
  EXPECT_EQ(m.data_rank_of, (std::vector<std::int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(model_parallel_groups(mesh), (std::vector<std::vector<std::int64_t>>{{0, 2}, {1, 3}}));
}

// Recorded: mesh-dp2-tp2-iter-dispatch raises; mesh-fsdp2-tp2-iter-dispatch gives every rank the same batches.
TEST(DeviceMesh, DispatcherReplicatesUnderTpAndRefusesOldNames) {
  EXPECT_THROW(dispatcher_mesh(DeviceMesh{{{"dp", 2}, {"tp", 2}}}), AccelerateError);
  const MeshDataRanks m = mesh_data_ranks(DeviceMesh{{{"dp_shard", 2}, {"tp", 2}}}, false, true, false);
  EXPECT_TRUE(m.dispatcher_replicates);
  EXPECT_EQ(m.data_ranks, 1);
  const MeshDataRanks split = mesh_data_ranks(DeviceMesh{{{"dp_shard", 2}, {"tp", 2}}}, false, true, true);
  EXPECT_EQ(split.data_ranks, 4);  // mesh-fsdp2-tp2-iter-dispatch-split: every rank its own slice
}

// Recorded on real ranks (not kept as a golden case): dp_shard=2 x sp=2 gives ranks 2-3 process_index 2-3 of 2.
TEST(DeviceMesh, IndexPastTheLoadersIsNotSimulated) {
  EXPECT_THROW(mesh_data_ranks(DeviceMesh{{{"dp_shard", 2}, {"sp", 2}}}, false, false, false), UnmodelledMesh);
}

}  // namespace
}  // namespace accel
