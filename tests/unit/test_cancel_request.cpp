// A SIGTERM or SIGINT asks the sweep to stop (harness/mpi/cancel_request.hpp): the handler notes
// it, the next check between iterations records the running configuration as cancelled, and the
// ranks' agreement puts cancelled above every failure but a lost device. Each test runs in a
// process of its own (ctest), so a signal raised here stays in its test.
#include <gtest/gtest.h>

#include <csignal>

#include "harness/mpi/cancel_request.hpp"
#include "harness/mpi/outcome.hpp"
#include "harness/mpi/status_agreement.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::mpi {
namespace {

using results::Status;

TEST(CancelRequest, WithoutASignalNothingIsCancelled) {
  install_cancel_handlers();
  EXPECT_EQ(cancel_signal(), 0);
  Outcome out;
  Deadline(3600).check(out);
  EXPECT_EQ(out.status, Status::ok);
}

TEST(CancelRequest, SigtermCancelsTheRunningConfigurationAtTheNextCheck) {
  install_cancel_handlers();
  ASSERT_EQ(std::raise(SIGTERM), 0);  // the process lives on: the handler only notes it
  EXPECT_EQ(cancel_signal(), SIGTERM);
  Outcome out;
  Deadline(3600).check(out);
  EXPECT_EQ(out.status, Status::cancelled);
  EXPECT_EQ(out.error, "cancelled by SIGTERM");
  for (const int signal : {SIGTERM, SIGINT}) {  // a second signal ends the process at once
    struct sigaction now {};
    ASSERT_EQ(sigaction(signal, nullptr, &now), 0);
    EXPECT_EQ(now.sa_handler, SIG_DFL) << signal_name(signal);
  }
}

TEST(CancelRequest, SigintIsNamedAndWinsOverATimeoutAtTheSameCheck) {
  install_cancel_handlers();
  ASSERT_EQ(std::raise(SIGINT), 0);
  EXPECT_EQ(cancel_signal(), SIGINT);
  Outcome out;
  Deadline(0).check(out);  // a timeout at the same check: the cancel, noted first, wins
  EXPECT_EQ(out.status, Status::cancelled);
  EXPECT_EQ(out.error, "cancelled by SIGINT");
}

TEST(CancelRequest, CancelledIsStoredByNameAndAgreedAboveEveryFailure) {
  EXPECT_STREQ(results::to_string(Status::cancelled), "cancelled");
  EXPECT_EQ(results::status_from_string("cancelled"), Status::cancelled);
  for (const Status s : {Status::ok, Status::timeout, Status::oom, Status::error})
    EXPECT_LT(severity(s), severity(Status::cancelled)) << results::to_string(s);
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGHUP), "signal " + std::to_string(SIGHUP));
}

}  // namespace
}  // namespace scaletune::mpi
