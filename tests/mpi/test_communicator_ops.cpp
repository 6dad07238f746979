// Under mpirun: every operation of MpiCommunicator for every dtype, out of place and in place,
// with sum and avg, against a naive reference, and started (asynchronous) all-reduces against
// the blocking ones. Each rank computes every rank's input from pattern(rank, index), so each
// can compute the expected result alone.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Eigen/Core>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/mpi/mpi_communicator.hpp"
#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {
namespace {

using core::DType;
using core::ReduceOp;

/// Input of `rank` at `index`: an integer in [-31, 31]. Every such value, and every sum of up to
/// 8 of them (|s| <= 248 < 2^8), is exact in every dtype, bf16 included.
double pattern(int rank, std::size_t index) {
  return static_cast<double>((static_cast<std::size_t>(rank) * 13 + index * 7) % 63) - 31.0;
}

/// Fills outputs before an operation, so elements it should write and did not show up.
constexpr double kUnwritten = 99;

template <typename T>
struct Element;
template <>
struct Element<float> {
  static constexpr DType type = DType::fp32;
};
template <>
struct Element<double> {
  static constexpr DType type = DType::fp64;
};
template <>
struct Element<Eigen::half> {
  static constexpr DType type = DType::fp16;
};
template <>
struct Element<Eigen::bfloat16> {
  static constexpr DType type = DType::bf16;
};
template <>
struct Element<std::int32_t> {
  static constexpr DType type = DType::int32;
};
template <>
struct Element<std::int64_t> {
  static constexpr DType type = DType::int64;
};

/// `v` as a T (the 2-byte floats through float, rounded to nearest even).
template <typename T>
T make(double v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

/// The value of `x`, exactly.
template <typename T>
double value(T x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

/// ReduceOp::avg of an exact `sum` over `ranks` ranks as the interface defines it: integers
/// truncate toward zero (C++ division), fp64 divides in double, fp32 in float, and fp16/bf16
/// in float rounded once.
template <typename T>
T average(double sum, int ranks) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(sum) / ranks);
  } else if constexpr (std::is_same_v<T, double>) {
    return sum / ranks;
  } else {
    return make<T>(static_cast<float>(sum) / static_cast<float>(ranks));
  }
}

template <typename T>
void expect_elements(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (value(got[i]) != value(want[i]) && wrong++ == 0)
      ADD_FAILURE() << "first wrong element " << i << ": got " << value(got[i]) << ", want "
                    << value(want[i]);
  EXPECT_EQ(wrong, 0u) << "wrong elements of " << got.size();
}

std::string trace(std::size_t count, ReduceOp op, bool in_place) {
  return "count " + std::to_string(count) + ", " + std::string(core::reduce_op_name(op)) +
         (in_place ? ", in place" : ", out of place");
}

constexpr std::size_t kCounts[] = {0, 1, 7, 3001};
constexpr ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::avg};

template <typename T>
class CommunicatorOps : public ::testing::Test {
 protected:
  static constexpr DType kType = Element<T>::type;

  /// Rank r's input: [count] elements from pattern index `first` on.
  static std::vector<T> input(int r, std::size_t count, std::size_t first = 0) {
    std::vector<T> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = make<T>(pattern(r, first + i));
    return out;
  }
  static std::vector<T> unwritten(std::size_t count) {
    return std::vector<T>(count, make<T>(kUnwritten));
  }
  /// The reduction `op` over every rank's input at `index`.
  T reduced(std::size_t index, ReduceOp op) const {
    double sum = 0;
    for (int r = 0; r < size; ++r) sum += pattern(r, index);
    return op == ReduceOp::sum ? make<T>(sum) : average<T>(sum, size);
  }

  MpiCommunicator comm{MPI_COMM_WORLD};
  int rank = comm.rank();
  int size = comm.size();
};

struct DTypeNames {
  template <typename T>
  static std::string GetName(int) {
    return std::string(core::dtype_key(Element<T>::type));
  }
};
using ElementTypes =
    ::testing::Types<float, double, Eigen::half, Eigen::bfloat16, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(CommunicatorOps, ElementTypes, DTypeNames);

TYPED_TEST(CommunicatorOps, AllReduce) {
  for (const std::size_t count : kCounts)
    for (const ReduceOp op : kOps)
      for (const bool in_place : {false, true}) {
        SCOPED_TRACE(trace(count, op, in_place));
        const auto send = this->input(this->rank, count);
        auto recv = in_place ? send : this->unwritten(count);
        this->comm.all_reduce(in_place ? recv.data() : send.data(), recv.data(), count, this->kType,
                              op);
        std::vector<TypeParam> want(count);
        for (std::size_t i = 0; i < count; ++i) want[i] = this->reduced(i, op);
        expect_elements(recv, want);
      }
}

/// Expects `got` and `want` to hold the same bytes (bit for bit, NaN and -0 included).
template <typename T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  if (got.empty()) return;  // an empty vector's data() may be null, which memcmp must not get
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0);
}

TYPED_TEST(CommunicatorOps, StartedAllReducesEqualBlockingOnesBitForBit) {
  // Every count, op and placement at once, all in flight together before one wait_started().
  struct Started {
    std::size_t count;
    ReduceOp op;
    bool in_place;
    std::vector<TypeParam> send, recv;
  };
  std::vector<Started> started;
  for (const std::size_t count :
       {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{3001}, std::size_t{100000}})
    for (const ReduceOp op : kOps)
      for (const bool in_place : {false, true}) {
        const auto send = this->input(this->rank, count);
        started.push_back({count, op, in_place, send, in_place ? send : this->unwritten(count)});
      }
  for (Started& s : started)
    this->comm.start_all_reduce(s.in_place ? s.recv.data() : s.send.data(), s.recv.data(), s.count,
                                this->kType, s.op);
  int polls = 0;
  while (!this->comm.progress_started()) ++polls;  // MPI progresses them as we test
  SCOPED_TRACE(std::to_string(polls) + " polls before every started all-reduce completed");
  EXPECT_TRUE(this->comm.progress_started());  // stays complete
  this->comm.wait_started();
  for (const Started& s : started) {
    SCOPED_TRACE(trace(s.count, s.op, s.in_place));
    auto blocking = s.in_place ? s.send : this->unwritten(s.count);
    this->comm.all_reduce(s.in_place ? blocking.data() : s.send.data(), blocking.data(), s.count,
                          this->kType, s.op);
    expect_same_bits(s.recv, blocking);
    std::vector<TypeParam> want(s.count);
    for (std::size_t i = 0; i < s.count; ++i) want[i] = this->reduced(i, s.op);
    expect_elements(s.recv, want);
  }
  EXPECT_TRUE(this->comm.progress_started());  // none started any more
  this->comm.wait_started();                   // nothing to wait for
}

TYPED_TEST(CommunicatorOps, ReduceScatter) {
  for (const std::size_t count : kCounts)
    for (const ReduceOp op : kOps)
      for (const bool in_place : {false, true}) {
        SCOPED_TRACE(trace(count, op, in_place));
        const std::size_t own = static_cast<std::size_t>(this->rank) * count;
        auto send = this->input(this->rank, static_cast<std::size_t>(this->size) * count);
        auto recv = this->unwritten(count);
        if (in_place) {
          this->comm.reduce_scatter(send.data(), send.data() + own, count, this->kType, op);
          recv.assign(send.begin() + static_cast<std::ptrdiff_t>(own),
                      send.begin() + static_cast<std::ptrdiff_t>(own + count));
        } else {
          this->comm.reduce_scatter(send.data(), recv.data(), count, this->kType, op);
        }
        std::vector<TypeParam> want(count);
        for (std::size_t i = 0; i < count; ++i) want[i] = this->reduced(own + i, op);
        expect_elements(recv, want);
      }
}

TYPED_TEST(CommunicatorOps, AllGather) {
  for (const std::size_t count : kCounts)
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE(trace(count, ReduceOp::sum, in_place));
      const std::size_t own = static_cast<std::size_t>(this->rank) * count;
      const auto send = this->input(this->rank, count);
      auto recv = this->unwritten(static_cast<std::size_t>(this->size) * count);
      if (in_place) {
        std::copy(send.begin(), send.end(), recv.begin() + static_cast<std::ptrdiff_t>(own));
        this->comm.all_gather(recv.data() + own, recv.data(), count, this->kType);
      } else {
        this->comm.all_gather(send.data(), recv.data(), count, this->kType);
      }
      std::vector<TypeParam> want;
      for (int r = 0; r < this->size; ++r) {
        const auto block = this->input(r, count);
        want.insert(want.end(), block.begin(), block.end());
      }
      expect_elements(recv, want);
    }
}

/// Uneven per-rank counts, each but the last including ranks with none (every run has a rank 1).
const std::vector<std::pair<std::string, std::function<std::size_t(int)>>> kRankCounts = {
    {"r mod 3", [](int r) { return static_cast<std::size_t>(r % 3); }},
    {"none", [](int) { return std::size_t{0}; }},
    {"all on rank 1", [](int r) { return std::size_t{r == 1 ? 2001u : 0u}; }},
    {"1000 + 17 r", [](int r) { return static_cast<std::size_t>(1000 + 17 * r); }},
};

/// count_of(r) for every rank of a group of `size`.
std::vector<std::size_t> rank_counts(const std::function<std::size_t(int)>& count_of, int size) {
  std::vector<std::size_t> counts;
  for (int r = 0; r < size; ++r) counts.push_back(count_of(r));
  return counts;
}

TYPED_TEST(CommunicatorOps, ReduceScatterv) {
  for (const auto& [name, count_of] : kRankCounts)
    for (const ReduceOp op : kOps) {
      SCOPED_TRACE("counts " + name + ", " + std::string(core::reduce_op_name(op)));
      const auto counts = rank_counts(count_of, this->size);
      const auto me = static_cast<std::size_t>(this->rank);
      std::size_t own = 0;  // this rank's block offset in send
      for (std::size_t r = 0; r < me; ++r) own += counts[r];
      std::size_t total = 0;
      for (const std::size_t count : counts) total += count;
      const auto send = this->input(this->rank, total);
      auto recv = this->unwritten(counts[me]);
      this->comm.reduce_scatterv(send.data(), recv.data(), counts, this->kType, op);
      std::vector<TypeParam> want(counts[me]);
      for (std::size_t i = 0; i < counts[me]; ++i) want[i] = this->reduced(own + i, op);
      expect_elements(recv, want);
    }
}

TYPED_TEST(CommunicatorOps, AllGatherv) {
  for (const auto& [name, count_of] : kRankCounts)
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE("counts " + name + (in_place ? ", in place" : ", out of place"));
      const auto counts = rank_counts(count_of, this->size);
      std::vector<TypeParam> want;
      std::size_t own = 0;  // this rank's displacement
      for (int r = 0; r < this->size; ++r) {
        if (r == this->rank) own = want.size();
        const auto block = this->input(r, counts[static_cast<std::size_t>(r)]);
        want.insert(want.end(), block.begin(), block.end());
      }
      const auto send = this->input(this->rank, counts[static_cast<std::size_t>(this->rank)]);
      auto recv = this->unwritten(want.size());
      if (in_place) {
        std::copy(send.begin(), send.end(), recv.begin() + static_cast<std::ptrdiff_t>(own));
        this->comm.all_gatherv(recv.data() + own, recv.data(), counts, this->kType);
      } else {
        this->comm.all_gatherv(send.data(), recv.data(), counts, this->kType);
      }
      expect_elements(recv, want);
    }
}

TYPED_TEST(CommunicatorOps, AllToAll) {
  // Block p of rank r's send is pattern(r, p * count + i); rank q receives it as its block r.
  // In place (send == recv) MPI_IN_PLACE gives the same exchange (MpiCommunicator documents it).
  for (const std::size_t count : kCounts)
    for (const bool in_place : {false, true}) {
      SCOPED_TRACE(trace(count, ReduceOp::sum, in_place));
      const std::size_t n = static_cast<std::size_t>(this->size) * count;
      const auto send = this->input(this->rank, n);
      auto recv = in_place ? send : this->unwritten(n);
      this->comm.all_to_all(in_place ? recv.data() : send.data(), recv.data(), count, this->kType);
      std::vector<TypeParam> want;
      for (int r = 0; r < this->size; ++r) {
        const auto block = this->input(r, count, static_cast<std::size_t>(this->rank) * count);
        want.insert(want.end(), block.begin(), block.end());
      }
      expect_elements(recv, want);
    }
}

/// Uneven counts rank src sends to rank dst, including zeros.
const std::vector<std::pair<std::string, std::function<std::size_t(int, int)>>> kPairCounts = {
    {"(src + 2 dst) mod 3", [](int s, int d) { return static_cast<std::size_t>((s + 2 * d) % 3); }},
    {"1 or 301", [](int s, int d) { return static_cast<std::size_t>(1 + 300 * ((s + d) % 2)); }},
};

TYPED_TEST(CommunicatorOps, AllToAllv) {
  // Rank src's block for dst holds pattern(src, dst * kStride + i).
  constexpr std::size_t kStride = 1000;
  for (const auto& [name, count_of] : kPairCounts) {
    SCOPED_TRACE("counts " + name);
    std::vector<std::size_t> send_counts, recv_counts;
    std::vector<TypeParam> send, want;
    for (int p = 0; p < this->size; ++p) {
      send_counts.push_back(count_of(this->rank, p));
      recv_counts.push_back(count_of(p, this->rank));
      const auto out =
          this->input(this->rank, send_counts.back(), static_cast<std::size_t>(p) * kStride);
      send.insert(send.end(), out.begin(), out.end());
      const auto in =
          this->input(p, recv_counts.back(), static_cast<std::size_t>(this->rank) * kStride);
      want.insert(want.end(), in.begin(), in.end());
    }
    auto recv = this->unwritten(want.size());
    this->comm.all_to_allv(send.data(), send_counts, recv.data(), recv_counts, this->kType);
    expect_elements(recv, want);
  }
}

TYPED_TEST(CommunicatorOps, BroadcastFromEveryRoot) {
  for (int root = 0; root < this->size; ++root)
    for (const std::size_t count : kCounts)
      for (const bool in_place : {false, true}) {
        SCOPED_TRACE("root " + std::to_string(root) + ", " + trace(count, ReduceOp::sum, in_place));
        const auto want = this->input(root, count);
        // Out of place every rank's send holds its own input: only the root's may arrive.
        const auto send = this->input(this->rank, count);
        auto data = in_place && this->rank == root ? want : this->unwritten(count);
        this->comm.broadcast(in_place ? data.data() : send.data(), data.data(), count, this->kType,
                             root);
        expect_elements(data, want);
      }
}

// ---- Started all-reduces of several types in flight together ----------------------------------

TEST(StartedAllReduce, MixedTypesAndOpsInFlightTogetherMatchTheNaiveSum) {
  // fp32, fp64 and bf16 sums and an fp32 average, started back to back and waited for once:
  // each must equal both the naive sum over ranks of pattern() and the blocking all_reduce.
  MpiCommunicator comm(MPI_COMM_WORLD);
  const int n = comm.size();
  const auto naive = [&](std::size_t i) {
    double sum = 0;
    for (int r = 0; r < n; ++r) sum += pattern(r, i);
    return sum;
  };
  std::vector<float> f32(5000), f32_avg(257);
  std::vector<double> f64(33);
  std::vector<Eigen::bfloat16> b16(1025);
  for (std::size_t i = 0; i < f32.size(); ++i) f32[i] = make<float>(pattern(comm.rank(), i));
  for (std::size_t i = 0; i < f32_avg.size(); ++i)
    f32_avg[i] = make<float>(pattern(comm.rank(), i));
  for (std::size_t i = 0; i < f64.size(); ++i) f64[i] = pattern(comm.rank(), i);
  for (std::size_t i = 0; i < b16.size(); ++i)
    b16[i] = make<Eigen::bfloat16>(pattern(comm.rank(), i));
  const auto f32_in = f32, f32_avg_in = f32_avg;
  const auto f64_in = f64;
  const auto b16_in = b16;
  comm.start_all_reduce(f32.data(), f32.data(), f32.size(), DType::fp32, ReduceOp::sum);
  comm.start_all_reduce(f64.data(), f64.data(), f64.size(), DType::fp64, ReduceOp::sum);
  comm.start_all_reduce(b16.data(), b16.data(), b16.size(), DType::bf16, ReduceOp::sum);
  comm.start_all_reduce(f32_avg.data(), f32_avg.data(), f32_avg.size(), DType::fp32, ReduceOp::avg);
  while (!comm.progress_started()) {
  }
  comm.wait_started();
  for (std::size_t i = 0; i < f32.size(); ++i) ASSERT_EQ(f32[i], naive(i)) << "fp32 " << i;
  for (std::size_t i = 0; i < f64.size(); ++i) ASSERT_EQ(f64[i], naive(i)) << "fp64 " << i;
  for (std::size_t i = 0; i < b16.size(); ++i) ASSERT_EQ(value(b16[i]), naive(i)) << "bf16 " << i;
  for (std::size_t i = 0; i < f32_avg.size(); ++i)
    ASSERT_EQ(f32_avg[i], average<float>(naive(i), n)) << "fp32 avg " << i;
  auto f32_blocking = f32_in;
  auto f64_blocking = f64_in;
  auto b16_blocking = b16_in;
  auto f32_avg_blocking = f32_avg_in;
  comm.all_reduce(f32_blocking.data(), f32_blocking.data(), f32.size(), DType::fp32, ReduceOp::sum);
  comm.all_reduce(f64_blocking.data(), f64_blocking.data(), f64.size(), DType::fp64, ReduceOp::sum);
  comm.all_reduce(b16_blocking.data(), b16_blocking.data(), b16.size(), DType::bf16, ReduceOp::sum);
  comm.all_reduce(f32_avg_blocking.data(), f32_avg_blocking.data(), f32_avg.size(), DType::fp32,
                  ReduceOp::avg);
  expect_same_bits(f32, f32_blocking);
  expect_same_bits(f64, f64_blocking);
  expect_same_bits(b16, b16_blocking);
  expect_same_bits(f32_avg, f32_avg_blocking);
}

TEST(StartedAllReduce, ManyMoreThanReservedStillComplete) {
  // More started at once than the communicator reserved for: the vectors grow and all finish.
  MpiCommunicator comm(MPI_COMM_WORLD);
  std::vector<std::vector<double>> data(200);
  for (std::size_t k = 0; k < data.size(); ++k)
    data[k].assign(k % 5 + 1, static_cast<double>(comm.rank() + k));
  for (auto& d : data)
    comm.start_all_reduce(d.data(), d.data(), d.size(), DType::fp64, ReduceOp::avg);
  comm.wait_started();  // without polling first: waiting alone must finish them
  const int n = comm.size();
  for (std::size_t k = 0; k < data.size(); ++k) {
    // avg over ranks of (r + k) = (n - 1) / 2 + k
    const double want = (n - 1) / 2.0 + static_cast<double>(k);
    for (const double v : data[k]) ASSERT_EQ(v, want) << "all-reduce " << k;
  }
}

// ---- fp16 and bf16 sums where rounding happens ----------------------------------------------

/// Rank 0 contributes a, rank 1 b, every other rank +0 (adding +0 is exact), so in any order of
/// reduction the sum is a + b rounded once: the reference rounds the float sum to the type.
template <typename Half>
void expect_rounded_sums(MpiCommunicator& comm, const std::vector<std::pair<float, float>>& ab) {
  std::vector<Half> data, want;
  std::size_t rounded = 0;
  for (const auto& [a, b] : ab) {
    data.push_back(Half(comm.rank() == 0 ? a : comm.rank() == 1 ? b : 0.0f));
    want.push_back(Half(a + b));  // a, b exact in Half; a + b exact in float
    if (value(want.back()) != static_cast<double>(a) + b) ++rounded;
  }
  ASSERT_GT(rounded, 0u) << "no case rounds: the test would not see a wrong rounding";
  comm.all_reduce(data.data(), data.data(), data.size(), Element<Half>::type, ReduceOp::sum);
  expect_elements(data, want);
}

TEST(HalfPrecisionSum, RoundsOnceToNearestEven) {
  MpiCommunicator comm(MPI_COMM_WORLD);
  // bf16 spacing above 1 is 2^-7: ties go to the even neighbour, the rest to the nearest.
  expect_rounded_sums<Eigen::bfloat16>(
      comm, {{1.0f, 0x1p-8f}, {1.0f + 0x1p-7f, 0x1p-8f}, {1.0f, 3 * 0x1p-9f}, {3.0f, 5.0f}});
  // fp16 spacing at 2048 is 2; 65504 is the largest finite value, 65536 overflows.
  expect_rounded_sums<Eigen::half>(
      comm, {{2048.0f, 1.0f}, {2050.0f, 1.0f}, {65504.0f, 32.0f}, {0.5f, 0.25f}});
}

// ---- Host buffers, timer, errors --------------------------------------------------------------

TEST(MpiCommunicator, HostBuffersCarryACollective) {
  MpiCommunicator comm(MPI_COMM_WORLD);
  EXPECT_EQ(comm.memory_space(), core::MemorySpace::host);
  EXPECT_EQ(comm.backend(), "mpi");
  const std::vector<std::int64_t> mine = {comm.rank(), 10, -3};
  const auto buffer = comm.allocate(mine.size() * sizeof(std::int64_t));
  buffer->upload(std::as_bytes(std::span(mine)));
  const auto timer = comm.timer();
  timer->mark();
  comm.all_reduce(buffer->data(), buffer->data(), mine.size(), DType::int64, ReduceOp::sum);
  comm.synchronize();
  timer->mark();
  std::vector<std::int64_t> got(mine.size());
  buffer->download(std::as_writable_bytes(std::span(got)));
  const std::int64_t n = comm.size();
  EXPECT_EQ(got, (std::vector<std::int64_t>{n * (n - 1) / 2, 10 * n, -3 * n}));
  EXPECT_EQ(timer->intervals().size(), 1u);
}

/// Runs `call` and expects an E whose message contains `words`.
template <typename E>
void expect_error(const std::function<void()>& call, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one saying \"" << words << "\"";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(MpiCommunicator, CountsPastIntMaxAreRefusedNamingTheOperation) {
  // Every rank throws before any MPI call, so no rank is left waiting in a collective.
  MpiCommunicator comm(MPI_COMM_WORLD);
  const std::size_t too_many = std::size_t{INT_MAX} + 1;
  const DType f = DType::fp32;
  expect_error<MpiError>([&] { comm.reduce_scatter(nullptr, nullptr, too_many, f, ReduceOp::sum); },
                         "reduce_scatter: recv_count 2147483648");
  expect_error<MpiError>([&] { comm.all_gather(nullptr, nullptr, too_many, f); },
                         "all_gather: send_count 2147483648");
  expect_error<MpiError>([&] { comm.all_to_all(nullptr, nullptr, too_many, f); },
                         "all_to_all: count 2147483648");
  expect_error<MpiError>([&] { comm.broadcast(nullptr, nullptr, too_many, f, 0); },
                         "broadcast: count 2147483648");
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm.size()), 1);
  counts.back() = too_many;
  expect_error<MpiError>([&] { comm.all_gatherv(nullptr, nullptr, counts, f); },
                         "all_gatherv: counts 2147483648");
  expect_error<MpiError>([&] { comm.all_to_allv(nullptr, counts, nullptr, counts, f); },
                         "all_to_allv: send_counts 2147483648");
  expect_error<MpiError>([&] { comm.reduce_scatterv(nullptr, nullptr, counts, f, ReduceOp::sum); },
                         "reduce_scatterv: counts 2147483648");
  if (comm.size() >= 3) {
    // Rank 2's block would start at 2 * INT_MAX.
    std::vector<std::size_t> big(static_cast<std::size_t>(comm.size()), INT_MAX);
    expect_error<MpiError>([&] { comm.all_gatherv(nullptr, nullptr, big, f); },
                           "all_gatherv: displacement 4294967294");
    expect_error<MpiError>([&] { comm.reduce_scatterv(nullptr, nullptr, big, f, ReduceOp::sum); },
                           "reduce_scatterv: displacement 4294967294");
  }
}

TEST(MpiCommunicator, BadCountSpansAndRootsAreRefused) {
  MpiCommunicator comm(MPI_COMM_WORLD);
  const std::vector<std::size_t> one_short(static_cast<std::size_t>(comm.size()) - 1, 1);
  expect_error<std::invalid_argument>(
      [&] { comm.all_gatherv(nullptr, nullptr, one_short, DType::fp32); },
      "all_gatherv: counts has " + std::to_string(comm.size() - 1) + " entries");
  expect_error<std::invalid_argument>(
      [&] { comm.reduce_scatterv(nullptr, nullptr, one_short, DType::fp32, ReduceOp::sum); },
      "reduce_scatterv: counts has " + std::to_string(comm.size() - 1) + " entries");
  for (const int root : {-1, comm.size()})
    expect_error<std::invalid_argument>(
        [&] { comm.broadcast(nullptr, nullptr, 0, DType::fp32, root); },
        "broadcast: root " + std::to_string(root) + " outside [0, " + std::to_string(comm.size()) +
            ")");
}

}  // namespace
}  // namespace scaletune::mpi
