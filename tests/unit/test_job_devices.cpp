// [devices] kind, [comm] overlap and the rules that tie them to [comm] backend and [sweep]
// precision: every kind with every precision under every device kind, and the messages (file,
// line, key, value and what to use instead) of the combinations refused at parse time.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/job/device_selection.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "tests/support/job_text.hpp"

namespace scaletune::job {
namespace {

using testing_support::contains;
using testing_support::job_error_of;
using testing_support::line_of;

constexpr const char* kFile = "devices.toml";

/// A valid job of `kind` on 1 and 2 ranks with [sweep] precision `precision` (none: the
/// default), then `tail` (more tables).
std::string training_job(const std::string& kind, const std::string& precision,
                         const std::string& tail = "") {
  std::string text = "[job]\nname = \"d\"\n[workload]\nkind = \"" + kind + "\"\n";
  if (kind == "dlrm") text += "[[workload.tables]]\nrows = 10\ndim = 128\npooling = 2\n";
  text += "[sweep]\nranks = [1, 2]\nglobal_batch = [4]\n";
  if (kind == "dlrm") text += "sharding = [\"table_wise\"]\n";
  if (!precision.empty()) text += "precision = [\"" + precision + "\"]\n";
  return text + tail;
}

std::string devices(const std::string& kind) {
  return "[devices]\nkind = \"" + kind + "\"\n";
}

TEST(DevicesKind, DefaultsToAutoAndReadsEveryValue) {
  EXPECT_EQ(parse_job_text(training_job("resnet50", ""), kFile).devices.kind,
            DeviceKindRequest::auto_select);
  for (const DeviceKindRequest request : kDeviceKindRequests) {
    const std::string word(device_kind_request_text(request));
    SCOPED_TRACE(word);
    EXPECT_EQ(parse_job_text(training_job("resnet50", "", devices(word)), kFile).devices.kind,
              request);
  }
  const JobSpec both = parse_job_text(
      training_job("resnet50", "", "[devices]\nkind = \"cuda\"\nmemory_gib = 80\n"), kFile);
  EXPECT_EQ(both.devices.kind, DeviceKindRequest::cuda);
  EXPECT_EQ(both.devices.memory_gib, std::vector<double>{80.0});
}

TEST(DevicesKind, UnknownValueOrTypeIsAnErrorAtTheKey) {
  const std::string typo = training_job("resnet50", "", devices("gpu"));
  JobError e = job_error_of(typo, kFile);
  EXPECT_EQ(e.key(), "kind");
  EXPECT_EQ(e.line(), line_of(typo, "kind = \"gpu\""));
  EXPECT_EQ(e.message(), "unknown kind 'gpu'; expected one of auto, host, cuda");
  e = job_error_of(training_job("resnet50", "", devices("cdua")), kFile);
  EXPECT_TRUE(contains(e.message(), "did you mean 'cuda'?")) << e.what();
  e = job_error_of(training_job("resnet50", "", "[devices]\nkind = 1\n"), kFile);
  EXPECT_EQ(e.message(), "kind: integer where a string is expected");
  e = job_error_of(training_job("resnet50", "", "[devices]\nknd = \"host\"\n"), kFile);
  EXPECT_EQ(e.message(), "unknown key in [devices]; did you mean 'kind'?");
}

TEST(CommOverlap, DefaultsToTrueAndTakesABoolean) {
  EXPECT_TRUE(parse_job_text(training_job("resnet50", ""), kFile).comm.overlap);
  EXPECT_FALSE(parse_job_text(training_job("resnet50", "", "[comm]\noverlap = false\n"), kFile)
                   .comm.overlap);
  EXPECT_TRUE(
      parse_job_text(training_job("resnet50", "", "[comm]\noverlap = true\n"), kFile).comm.overlap);
  const std::string text = training_job("resnet50", "", "[comm]\noverlap = \"yes\"\n");
  const JobError e = job_error_of(text, kFile);
  EXPECT_EQ(e.key(), "overlap");
  EXPECT_EQ(e.line(), line_of(text, "overlap"));
  EXPECT_EQ(e.message(), "overlap: string where a boolean (true or false) is expected");
}

// NCCL needs device buffers: with "auto" or "cuda" the run decides; with "host" the job cannot
// run, for every kind.
TEST(CommBackend, NcclIsRefusedWithHostDevicesNamingBothKeys) {
  for (const std::string kind : {"resnet50", "dlrm", "transformer"}) {
    SCOPED_TRACE(kind);
    const std::string nccl = "[comm]\nbackend = \"nccl\"\n";
    for (const std::string allowed : {"", "auto", "cuda"})
      EXPECT_EQ(parse_job_text(
                    training_job(kind, "", nccl + (allowed.empty() ? "" : devices(allowed))), kFile)
                    .comm.backend,
                CommBackend::nccl);
    const std::string text = training_job(kind, "", nccl + devices("host"));
    const JobError e = job_error_of(text, kFile);
    EXPECT_EQ(e.key(), "backend");
    EXPECT_EQ(e.line(), line_of(text, "backend = \"nccl\""));
    EXPECT_EQ(e.message(),
              "comm.backend = \"nccl\" moves device buffers, but devices.kind = \"host\" keeps "
              "every rank on the host; use backend \"mpi\" or \"auto\", or devices.kind = "
              "\"cuda\" or \"auto\"");
  }
  const std::string collectives =
      "[job]\nname = \"c\"\n[workload]\nkind = \"collectives\"\n[sweep]\nranks = [2]\n"
      "[comm]\nbackend = \"nccl\"\n";
  EXPECT_NO_THROW(parse_job_text(collectives, kFile));
  EXPECT_EQ(job_error_of(collectives + devices("host"), kFile).key(), "backend");
  for (const std::string backend : {"mpi", "auto"})
    EXPECT_NO_THROW(parse_job_text(
        training_job("resnet50", "", "[comm]\nbackend = \"" + backend + "\"\n" + devices("host")),
        kFile));
}

/// Whether kind `kind` trains in `precision` on the host, as README.md documents it.
bool documented_on_host(const std::string& kind, const std::string& precision) {
  return precision == "fp32" || kind == "dlrm";
}

// Every training kind takes every training precision where devices may be CUDA ones; with
// devices.kind = "host" only what the host runs, the rest refused at the precision.
TEST(SweepPrecision, EveryKindAndPrecisionUnderEveryDeviceKind) {
  for (const std::string kind : {"resnet50", "dlrm", "transformer"})
    for (const std::string precision : {"fp32", "fp16", "bf16"})
      for (const std::string request : {"auto", "cuda", "host"}) {
        SCOPED_TRACE(kind + " " + precision + " " + request);
        const std::string text = training_job(kind, precision, devices(request));
        if (request != "host" || documented_on_host(kind, precision)) {
          const JobSpec job = parse_job_text(text, kFile);
          ASSERT_EQ(job.sweep.precision.size(), 1u);
          EXPECT_EQ(data_type_text(job.sweep.precision[0]), precision);
          // The configuration ids and precision text are the value as written.
          EXPECT_TRUE(contains(expand_sweep(job).front().id, "-" + precision));
          continue;
        }
        const JobError e = job_error_of(text, kFile);
        EXPECT_EQ(e.key(), "precision");
        EXPECT_EQ(e.line(), line_of(text, "precision = "));
        EXPECT_EQ(e.message(),
                  "precision \"" + precision + "\" of workload.kind = \"" + kind +
                      "\" needs CUDA devices (16-bit activations and tensor-core GEMMs); on the "
                      "host " +
                      kind +
                      " trains in fp32 only: use precision \"fp32\", or let the devices decide: "
                      "devices.kind = \"host\" keeps every rank on the host; \"auto\" or "
                      "\"cuda\" trains in " +
                      precision + " on CUDA devices");
      }
}

TEST(SweepPrecision, TheRefusalPointsAtTheSixteenBitValueOfAList) {
  const std::string text =
      "[job]\nname = \"d\"\n[workload]\nkind = \"resnet50\"\n[sweep]\nranks = [1]\n"
      "global_batch = [4]\nprecision = [\"fp32\", \"fp16\"]\n" +
      devices("host");
  const JobError e = job_error_of(text, kFile);
  EXPECT_EQ(e.key(), "precision");
  EXPECT_EQ(e.column(), static_cast<int>(std::string("precision = [\"fp32\", ").size()) + 1);
}

TEST(HostPrecision, FollowsTheKindsAndNamesWhatToUse) {
  for (const DataType precision : kTrainingPrecisions) {
    EXPECT_TRUE(precision_supported_on_host("dlrm", precision));
    EXPECT_EQ(precision_supported_on_host("resnet50", precision), precision == DataType::fp32);
    EXPECT_EQ(precision_supported_on_host("transformer", precision), precision == DataType::fp32);
  }
  for (const DataType dtype : kCollectiveDtypes)
    EXPECT_TRUE(precision_supported_on_host("collectives", dtype));
  EXPECT_THROW(precision_supported_on_host("bert", DataType::fp32), std::out_of_range);
  EXPECT_EQ(unsupported_on_host_message("resnet50", DataType::bf16),
            "precision \"bf16\" of workload.kind = \"resnet50\" needs CUDA devices (16-bit "
            "activations and tensor-core GEMMs); on the host resnet50 trains in fp32 only: use "
            "precision \"fp32\"");
}

}  // namespace
}  // namespace scaletune::job
