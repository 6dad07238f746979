// core::poll_until: a wait that ends when done() says so, and gives up (throwing) once its
// limit has passed, as a communicator's wait for a stopped peer must.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include "harness/core/poll_until.hpp"

namespace scaletune::core {
namespace {

struct GaveUp : std::runtime_error {
  GaveUp() : std::runtime_error("gave up") {}
};

TEST(PollUntil, ReturnsOnceDoneWithoutGivingUp) {
  int calls = 0;
  bool gave_up = false;
  poll_until([&] { return ++calls == 5; }, 60, [&] { gave_up = true; });
  EXPECT_EQ(calls, 5);
  EXPECT_FALSE(gave_up);
}

TEST(PollUntil, GivesUpAfterItsLimitWhenNeverDone) {
  const auto start = std::chrono::steady_clock::now();
  int calls = 0;
  EXPECT_THROW(poll_until([&] { return ++calls < 0; }, 0.05, [] { throw GaveUp(); }), GaveUp);
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited_s, 0.05);
  EXPECT_LT(waited_s, 5.0);  // not forever
  EXPECT_GT(calls, 1);       // it kept polling until then
}

TEST(PollUntil, AnExceptionOfDonePassesThrough) {
  EXPECT_THROW(poll_until([]() -> bool { throw std::logic_error("peer failed"); }, 60,
                          [] { throw GaveUp(); }),
               std::logic_error);
}

}  // namespace
}  // namespace scaletune::core
