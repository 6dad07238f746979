// Canonical accelerator and software-stack names of MLPerf submissions: spellings taken from the
// shared MLPerf Training ResNet-50 CSV, and every accelerator of that file mapped to a name that
// the rules in the header give by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "autotune/mlperf_import.hpp"
#include "autotune/mlperf_names.hpp"

namespace at = scaletune::autotune;

TEST(CanonicalAccelerator, SpellingsOfOneModelAgree) {
  for (const char* name : {"NVIDIA A100-SXM4-80GB (400W)", "NVIDIA A100-SXM4-80GB(400W)",
                           "A100-SXM4-80GB", "NVIDIA A100-SXM-80GB CTS", "NVIDIA A100-SXM-80GB"})
    EXPECT_EQ(at::canonical_accelerator(name), "A100-SXM-80GB") << name;
  EXPECT_EQ(at::canonical_accelerator("NVIDIA A100-PCIe-80GB"), "A100-PCIE-80GB");
  EXPECT_EQ(at::canonical_accelerator("NVIDIA A100-PCIE-80GB (300W)"), "A100-PCIE-80GB");
  EXPECT_EQ(at::canonical_accelerator("NVIDIA H100-SXM5-80GB"), "H100-SXM-80GB");
  EXPECT_EQ(at::canonical_accelerator("  Habana Gaudi2 "), "GAUDI2");
  EXPECT_EQ(at::canonical_accelerator("Intel Gaudi2"), "GAUDI2");
  EXPECT_EQ(at::canonical_accelerator("TPU-v4"), "TPU-V4");
  EXPECT_EQ(at::canonical_accelerator("TPU"), "TPU-V4");
  EXPECT_EQ(at::canonical_accelerator("NVIDIA A30-PCIE-24GB"), "A30");
  EXPECT_EQ(at::canonical_accelerator("NVIDIA A30"), "A30");
  EXPECT_EQ(at::canonical_accelerator("NVIDIA H100-PCIe"), "H100-PCIE-80GB");
  EXPECT_EQ(at::canonical_accelerator("Habana Gaudi HL-205"), "GAUDI");
  EXPECT_EQ(at::canonical_accelerator(""), "");
}

TEST(CanonicalAccelerator, DistinctModelsStayDistinct) {
  EXPECT_NE(at::canonical_accelerator("NVIDIA A100-SXM4-40GB"),
            at::canonical_accelerator("NVIDIA A100-SXM4-80GB"));
  EXPECT_NE(at::canonical_accelerator("NVIDIA H100-PCIe-80GB"),
            at::canonical_accelerator("NVIDIA H100-SXM5-80GB"));
  EXPECT_NE(at::canonical_accelerator("NVIDIA L40"), at::canonical_accelerator("NVIDIA L40S"));
}

TEST(SoftwareStack, FrameworkFamilies) {
  EXPECT_EQ(at::software_stack("NGC MXNet 22.09 , NGC PyTorch 22.09 , NGC TensorFlow 22.09-tf1"),
            "mxnet");
  EXPECT_EQ(at::software_stack("NVIDIA Release 22.04 Tensorflow, MxNet, pytorch, hugectr"),
            "mxnet");
  EXPECT_EQ(at::software_stack("mxnet"), "mxnet");
  EXPECT_EQ(at::software_stack("TensorFlow 1.15 Poplar SDK 2.5.1"), "tensorflow");
  EXPECT_EQ(at::software_stack("PyTorch 2.0.1a0"), "pytorch");
  EXPECT_EQ(at::software_stack("Mindspore v1.2.1"), "mindspore");
  EXPECT_EQ(at::software_stack("PaddlePaddle (branch: develop, commitID: 605e7f0)"),
            "paddlepaddle");
  EXPECT_EQ(at::software_stack("CUDA 12.0"), "unspecified");
  EXPECT_EQ(at::software_stack(""), "unspecified");
}

// The shared file's 44 accelerator spellings (after dropping repeated rows) name fewer models;
// counted by hand from the list of spellings: A100 SXM 80GB, A100 SXM 40GB, A100 PCIe 80GB,
// A100 PCIe 40GB, H100 SXM 80GB, H100 SXM 96GB, H100 PCIe (80GB), A30, A40, A10G, L4, L40, L40S,
// RTX A5000, Gaudi (and its HL-205 card), Gaudi2 (Habana's and Intel's), IPU GC200, Bow IPU,
// TPU v4, Ascend 910 Pro A: 20.
TEST(CanonicalAccelerator, SharedFileModels) {
  const at::MlperfImport imported =
      at::read_mlperf_csv(std::string(SCALETUNE_SHARED_DIR) +
                          "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv");
  std::set<std::string> spellings;
  std::set<std::string> models;
  for (const auto& c : imported.configs) {
    spellings.insert(c.text_attrs.at("accelerator"));
    models.insert(at::canonical_accelerator(c.text_attrs.at("accelerator")));
  }
  EXPECT_EQ(spellings.size(), 44u);
  EXPECT_EQ(models.size(), 20u);
  EXPECT_TRUE(models.contains("A100-SXM-80GB"));
  EXPECT_TRUE(models.contains("H100-SXM-80GB"));
}
