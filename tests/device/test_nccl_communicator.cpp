// NcclCommunicator against host references, run under mpiexec with 1 and 2 ranks. Without a
// device (the build machines) the parts that need none still run: the library version, the
// error wrapper, the type mapping and this file's binary16 and bfloat16 encoders. Cases that
// need one device per rank skip when there are fewer devices; they share one CudaContext and
// check that collectives are ordered against its compute stream.
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/communicator.hpp"
#include "harness/core/error_context.hpp"
#include "harness/device/cuda_context.hpp"
#include "harness/device/cuda_device.hpp"
#include "harness/device/cuda_error.hpp"
#include "harness/device/device_buffer.hpp"
#include "harness/mpi/device_binding.hpp"
#include "harness/nccl/detail/nccl_types.hpp"
#include "harness/nccl/nccl_communicator.hpp"
#include "harness/nccl/nccl_error.hpp"
#include "harness/nccl/nccl_version.hpp"

namespace scaletune::nccl {
namespace {

using core::DType;
using core::ReduceOp;

constexpr double kWaitLimitS = 120;  // one wait; a healthy test never comes near it

constexpr DType kAllTypes[] = {DType::fp32, DType::fp64,  DType::fp16,
                               DType::bf16, DType::int32, DType::int64};

// ---- Host encodings of the element types (the references) ----

/// IEEE 754 binary16 bits of `v` (1 sign, 5 exponent bits biased by 15, 10 fraction bits),
/// for zero and normal values that binary16 holds exactly; throws for anything else.
std::uint16_t half_bits(float v) {
  const auto f = std::bit_cast<std::uint32_t>(v);
  const std::uint32_t sign = f >> 31, exponent = (f >> 23) & 0xffu, fraction = f & 0x7fffffu;
  if (exponent == 0 && fraction == 0) return static_cast<std::uint16_t>(sign << 15);
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent < 1 || half_exponent > 30 || (fraction & 0x1fffu) != 0) {
    throw std::invalid_argument("half_bits: " + std::to_string(v) + " is not exact in binary16");
  }
  return static_cast<std::uint16_t>(sign << 15 | static_cast<std::uint32_t>(half_exponent) << 10 |
                                    fraction >> 13);
}

/// The value of binary16 bits `h`: zero or normal; NaN for subnormals, infinities and NaN
/// (no test value is one, so a comparison with them fails).
float from_half_bits(std::uint16_t h) {
  const std::uint32_t sign = h >> 15u, exponent = (h >> 10u) & 0x1fu, fraction = h & 0x3ffu;
  if (exponent == 0 && fraction == 0) return std::bit_cast<float>(sign << 31);
  if (exponent == 0 || exponent == 31) return std::numeric_limits<float>::quiet_NaN();
  return std::bit_cast<float>(sign << 31 | (exponent + 127 - 15) << 23 | fraction << 13);
}

/// bfloat16 bits of `v`: the upper 16 bits of binary32; throws unless the lower 16 are zero.
std::uint16_t bf16_bits(float v) {
  const auto f = std::bit_cast<std::uint32_t>(v);
  if ((f & 0xffffu) != 0) {
    throw std::invalid_argument("bf16_bits: " + std::to_string(v) + " is not exact in bfloat16");
  }
  return static_cast<std::uint16_t>(f >> 16);
}

float from_bf16_bits(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

template <class T>
void put(std::byte* out, T value) {
  std::memcpy(out, &value, sizeof value);
}

template <class T>
T get(const std::byte* in) {
  T value;
  std::memcpy(&value, in, sizeof value);
  return value;
}

void put_value(std::byte* out, double v, DType type) {
  switch (type) {
    case DType::fp32:
      return put(out, static_cast<float>(v));
    case DType::fp64:
      return put(out, v);
    case DType::fp16:
      return put(out, half_bits(static_cast<float>(v)));
    case DType::bf16:
      return put(out, bf16_bits(static_cast<float>(v)));
    case DType::int32:
      return put(out, static_cast<std::int32_t>(v));
    case DType::int64:
      return put(out, static_cast<std::int64_t>(v));
  }
}

double get_value(const std::byte* in, DType type) {
  switch (type) {
    case DType::fp32:
      return get<float>(in);
    case DType::fp64:
      return get<double>(in);
    case DType::fp16:
      return from_half_bits(get<std::uint16_t>(in));
    case DType::bf16:
      return from_bf16_bits(get<std::uint16_t>(in));
    case DType::int32:
      return get<std::int32_t>(in);
    case DType::int64:
      return static_cast<double>(get<std::int64_t>(in));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// `values` as elements of `type`, [values.size() * dtype_bytes(type)] bytes.
std::vector<std::byte> encode(const std::vector<double>& values, DType type) {
  const std::size_t size = core::dtype_bytes(type);
  std::vector<std::byte> bytes(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i)
    put_value(bytes.data() + i * size, values[i], type);
  return bytes;
}

std::vector<double> decode(std::span<const std::byte> bytes, DType type) {
  const std::size_t size = core::dtype_bytes(type);
  std::vector<double> values(bytes.size() / size);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = get_value(bytes.data() + i * size, type);
  return values;
}

TEST(NcclTestEncoding, HalfAndBfloat16BitsMatchPublishedEncodings) {
  // binary16: 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800, 7.5 = 0x4780, max 65504 = 0x7BFF.
  EXPECT_EQ(half_bits(1.0f), 0x3C00);
  EXPECT_EQ(half_bits(-2.0f), 0xC000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(7.5f), 0x4780);
  EXPECT_EQ(half_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_THROW(half_bits(0.1f), std::invalid_argument);
  EXPECT_THROW(half_bits(65536.0f), std::invalid_argument);
  // bfloat16: 1.0 = 0x3F80, -2.0 = 0xC000, 7.5 = 0x40F0.
  EXPECT_EQ(bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(bf16_bits(-2.0f), 0xC000);
  EXPECT_EQ(bf16_bits(7.5f), 0x40F0);
  EXPECT_THROW(bf16_bits(0.1f), std::invalid_argument);
  const std::vector<double> values{0.0, 1.0, -7.5, 15.0, 1000.0, -0.25};
  for (const DType type : kAllTypes) {
    std::vector<double> want = values;
    if (type == DType::int32 || type == DType::int64) want = {0.0, 1.0, -7.0, 15.0, 1000.0, 0.0};
    EXPECT_EQ(decode(encode(values, type), type), want) << core::dtype_key(type);
  }
}

// ---- Parts that need no device ----

TEST(NcclTypes, MapEveryTypeAndReduction) {
  EXPECT_EQ(detail::nccl_type(DType::fp32), ncclFloat32);
  EXPECT_EQ(detail::nccl_type(DType::fp64), ncclFloat64);
  EXPECT_EQ(detail::nccl_type(DType::fp16), ncclFloat16);
  EXPECT_EQ(detail::nccl_type(DType::bf16), ncclBfloat16);
  EXPECT_EQ(detail::nccl_type(DType::int32), ncclInt32);
  EXPECT_EQ(detail::nccl_type(DType::int64), ncclInt64);
  EXPECT_EQ(detail::nccl_op(ReduceOp::sum), ncclSum);
  EXPECT_EQ(detail::nccl_op(ReduceOp::avg), ncclAvg);
}

TEST(NcclVersion, IsTheLinkedLibrarysMajorMinorPatch) {
  // The library in the toolkit is the one whose header we compile against.
  const std::string header = std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
                             std::to_string(NCCL_PATCH);
  EXPECT_EQ(nccl_version(), header);
  EXPECT_EQ(nccl_version().rfind("2.", 0), 0u) << nccl_version();
}

TEST(NcclErrorCheck, NamesCallPlaceAndNcclExplanation) {
  EXPECT_NO_THROW(check_nccl(ncclSuccess, "ncclFoo()", "foo.cpp", 3, nullptr));
  try {
    check_nccl(ncclInvalidUsage, "ncclFoo(x, y)", "foo.cpp", 12, nullptr);
    ADD_FAILURE() << "expected NcclError";
  } catch (const NcclError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ncclFoo(x, y) failed at foo.cpp:12"), std::string::npos) << message;
    EXPECT_NE(message.find(ncclGetErrorString(ncclInvalidUsage)), std::string::npos) << message;
  }
  // A real failing call: ncclGetVersion rejects a null pointer.
  try {
    SCALETUNE_NCCL_CHECK(ncclGetVersion(nullptr), nullptr);
    ADD_FAILURE() << "expected NcclError";
  } catch (const NcclError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ncclGetVersion(nullptr)"), std::string::npos) << message;
    EXPECT_NE(message.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << message;
  }
}

TEST(NcclDeviceBinding, LocalRankOnOneNodeIsTheWorldRank) {
  // The tests run on one node, so the shared-memory split keeps every rank's world rank.
  int world_rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  EXPECT_EQ(mpi::local_rank(MPI_COMM_WORLD), world_rank);
}

TEST(NcclErrorCheck, NamesTheErrorContextWhenSet) {
  core::set_error_context(5, "node7", "cuda:2 NVIDIA H200");
  try {
    check_nccl(ncclInvalidArgument, "ncclBar()", "bar.cpp", 4, nullptr);
    ADD_FAILURE() << "expected NcclError";
  } catch (const NcclError& e) {
    const std::string want =
        std::string("ncclBar() failed at bar.cpp:4 on rank 5 (host node7, ") +
        "device cuda:2 NVIDIA H200): " + ncclGetErrorString(ncclInvalidArgument);
    EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
  }
  core::set_error_context(-1, "", "");
}

// ---- With one device per rank ----

/// Shares one CudaContext and one NcclCommunicator over MPI_COMM_WORLD across the cases
/// (ncclCommInitRank is slow); skips when any rank would lack a device of its own (NCCL refuses
/// two ranks on one).
class WithNccl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const int devices = device::device_count();
    int world = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (devices == 0 || devices < world) return;  // the same on every rank of one node
    s_context = std::make_unique<device::CudaContext>(
        mpi::device_for_rank(mpi::local_rank(MPI_COMM_WORLD), devices));
    s_comm = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, *s_context, kWaitLimitS);
  }
  static void TearDownTestSuite() {
    s_comm.reset();
    s_context.reset();
  }
  void SetUp() override {
    if (!s_comm) GTEST_SKIP() << "needs one CUDA device per rank";
  }

  static NcclCommunicator& comm() { return *s_comm; }
  static int rank() { return s_comm->rank(); }
  static int size() { return s_comm->size(); }

  static device::CudaContext& context() { return *s_context; }

  static inline std::unique_ptr<device::CudaContext> s_context;
  static inline std::unique_ptr<NcclCommunicator> s_comm;
};

/// A buffer of `comm` holding `values` as `type`.
std::unique_ptr<core::CommBuffer> to_device(core::Communicator& comm,
                                            const std::vector<double>& values, DType type) {
  auto buffer = comm.allocate(values.size() * core::dtype_bytes(type));
  buffer->upload(encode(values, type));
  return buffer;
}

/// The whole of `buffer` as values of `type`, after the communicator's work completed.
std::vector<double> to_host(core::Communicator& comm, const core::CommBuffer& buffer, DType type) {
  comm.synchronize();
  std::vector<std::byte> bytes(buffer.bytes());
  buffer.download(bytes);
  return decode(bytes, type);
}

/// Element `elements` of a device buffer of `type`.
void* at(core::CommBuffer& buffer, std::size_t elements, DType type) {
  return static_cast<std::byte*>(buffer.data()) + elements * core::dtype_bytes(type);
}

/// Relative tolerance of results in `type` (a few units in the last place; integers exact).
double tolerance(DType type) {
  switch (type) {
    case DType::fp16:
      return 2e-3;
    case DType::bf16:
      return 2e-2;
    case DType::fp32:
      return 1e-6;
    case DType::fp64:
      return 1e-12;
    case DType::int32:
    case DType::int64:
      return 0.0;
  }
  return 0.0;
}

/// Expects got[i] == want[i] within tolerance(type) * max(1, |want[i]|); reports the first
/// mismatch.
void expect_values(const std::vector<double>& got, const std::vector<double>& want, DType type,
                   const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) <= tolerance(type) * std::max(1.0, std::abs(want[i]))) continue;
    if (mismatches++ == 0) first = i;
  }
  EXPECT_EQ(mismatches, 0u) << what << ": first at [" << first << "]: got " << got[first]
                            << ", expected " << want[first];
}

/// Rank r's element i of the reducing tests: small signed integers, exact in every type.
double reduce_input(int r, std::size_t i) {
  const double sign = i % 2 == 0 ? 1.0 : -1.0;
  return sign * (r + 1) * static_cast<double>(i % 5 + 1);
}

/// Naive reference: element i reduced over `n` ranks; avg divides the sum by n, truncating
/// toward zero for integer types (core/reduce_op.hpp).
double reduced(int n, std::size_t i, DType type, ReduceOp op) {
  double sum = 0.0;
  for (int r = 0; r < n; ++r) sum += reduce_input(r, i);
  if (op == ReduceOp::sum) return sum;
  const bool integer = type == DType::int32 || type == DType::int64;
  return integer ? std::trunc(sum / n) : sum / n;
}

std::vector<double> reduce_inputs(int r, std::size_t count) {
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = reduce_input(r, i);
  return values;
}

TEST_F(WithNccl, DescribesItself) {
  int mpi_rank = -1, mpi_size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  EXPECT_EQ(rank(), mpi_rank);
  EXPECT_EQ(size(), mpi_size);
  EXPECT_EQ(comm().backend(), "nccl");
  EXPECT_EQ(comm().memory_space(), core::MemorySpace::device);
}

TEST_F(WithNccl, BuffersCopyWholeAndPartialAndRefuseOversize) {
  auto buffer = comm().allocate(64);
  ASSERT_EQ(buffer->bytes(), 64u);
  EXPECT_NE(buffer->data(), nullptr);
  std::vector<std::byte> host(64);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::byte>(3 * i + 1);
  buffer->upload(host);
  std::vector<std::byte> back(64);
  buffer->download(back);
  EXPECT_EQ(back, host);
  const std::vector<std::byte> ones(8, std::byte{0xff});  // a partial upload: the first 8 bytes
  buffer->upload(ones);
  std::vector<std::byte> head(16);  // a partial download: the first 16 bytes
  buffer->download(head);
  for (std::size_t i = 0; i < head.size(); ++i) EXPECT_EQ(head[i], i < 8 ? ones[i] : host[i]) << i;
  std::vector<std::byte> too_big(65);
  EXPECT_THROW(buffer->upload(too_big), std::invalid_argument);
  EXPECT_THROW(buffer->download(too_big), std::invalid_argument);
  EXPECT_THROW(comm().allocate(std::size_t{1} << 60), std::bad_alloc);
}

TEST_F(WithNccl, AllReduceEveryTypeAndReductionOutOfAndInPlace) {
  const std::size_t count = 1001;
  for (const DType type : kAllTypes) {
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
      const std::string what =
          std::string(core::dtype_key(type)) + " " + std::string(core::reduce_op_name(op));
      std::vector<double> want(count);
      for (std::size_t i = 0; i < count; ++i) want[i] = reduced(size(), i, type, op);
      auto send = to_device(comm(), reduce_inputs(rank(), count), type);
      auto recv = comm().allocate(send->bytes());
      comm().all_reduce(send->data(), recv->data(), count, type, op);
      expect_values(to_host(comm(), *recv, type), want, type, what + " out of place");
      comm().all_reduce(send->data(), send->data(), count, type, op);
      expect_values(to_host(comm(), *send, type), want, type, what + " in place");
    }
  }
}

TEST_F(WithNccl, ReduceScatterGivesEachRankItsReducedBlock) {
  const std::size_t block = 37, total = block * static_cast<std::size_t>(size());
  const std::size_t mine = block * static_cast<std::size_t>(rank());
  for (const DType type : {DType::fp32, DType::int32}) {
    const ReduceOp op = type == DType::fp32 ? ReduceOp::sum : ReduceOp::avg;
    std::vector<double> want(block);
    for (std::size_t j = 0; j < block; ++j) want[j] = reduced(size(), mine + j, type, op);
    auto send = to_device(comm(), reduce_inputs(rank(), total), type);
    auto recv = comm().allocate(block * core::dtype_bytes(type));
    comm().reduce_scatter(send->data(), recv->data(), block, type, op);
    expect_values(to_host(comm(), *recv, type), want, type, "out of place");
    comm().reduce_scatter(send->data(), at(*send, mine, type), block, type, op);
    const auto in_place = to_host(comm(), *send, type);
    expect_values({in_place.begin() + static_cast<std::ptrdiff_t>(mine),
                   in_place.begin() + static_cast<std::ptrdiff_t>(mine + block)},
                  want, type, "in place");
  }
}

TEST_F(WithNccl, ReduceScattervGivesEachRankItsUnevenReducedBlock) {
  const std::size_t n = static_cast<std::size_t>(size()), me = static_cast<std::size_t>(rank());
  // Blocks of 2r + 3 elements; then all 101 elements on the last rank, none on the others.
  std::vector<std::size_t> uneven, last_only(n, 0);
  for (std::size_t r = 0; r < n; ++r) uneven.push_back(2 * r + 3);
  last_only.back() = 101;
  for (const std::vector<std::size_t>& counts : {uneven, last_only}) {
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    const std::size_t own = std::accumulate(
        counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(me), std::size_t{0});
    for (const DType type : kAllTypes) {
      for (const ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
        const std::string what = std::string(core::dtype_key(type)) + " " +
                                 std::string(core::reduce_op_name(op)) + ", " +
                                 std::to_string(counts[me]) + " of " + std::to_string(total);
        std::vector<double> want(counts[me]);
        for (std::size_t j = 0; j < counts[me]; ++j) want[j] = reduced(size(), own + j, type, op);
        auto send = to_device(comm(), reduce_inputs(rank(), total), type);
        auto recv = to_device(comm(), std::vector<double>(counts[me], -1.0), type);
        comm().reduce_scatterv(send->data(), recv->data(), counts, type, op);
        expect_values(to_host(comm(), *recv, type), want, type, what);
      }
    }
  }
  const std::vector<std::size_t> too_few(n + 1, 1);
  EXPECT_THROW(comm().reduce_scatterv(nullptr, nullptr, too_few, DType::fp32, ReduceOp::sum),
               std::invalid_argument);
}

/// Element j of rank r's contribution to the gathering tests.
double gather_input(int r, std::size_t j) {
  return 1000.0 * r + static_cast<double>(j);
}

TEST_F(WithNccl, AllGatherConcatenatesInRankOrderOutOfAndInPlace) {
  const DType type = DType::int32;
  const std::size_t count = 29, total = count * static_cast<std::size_t>(size());
  std::vector<double> want(total), mine(count), in_place(total, -1.0);
  for (int r = 0; r < size(); ++r)
    for (std::size_t j = 0; j < count; ++j) want[r * count + j] = gather_input(r, j);
  for (std::size_t j = 0; j < count; ++j)
    mine[j] = in_place[rank() * count + j] = gather_input(rank(), j);
  auto send = to_device(comm(), mine, type);
  auto recv = comm().allocate(total * core::dtype_bytes(type));
  comm().all_gather(send->data(), recv->data(), count, type);
  expect_values(to_host(comm(), *recv, type), want, type, "out of place");
  auto both = to_device(comm(), in_place, type);
  comm().all_gather(at(*both, rank() * count, type), both->data(), count, type);
  expect_values(to_host(comm(), *both, type), want, type, "in place");
}

TEST_F(WithNccl, AllGathervPlacesUnequalBlocksAtTheirOffsets) {
  const DType type = DType::fp64;
  std::vector<std::size_t> counts, offsets;
  std::vector<double> want;
  for (int r = 0; r < size(); ++r) {
    counts.push_back(2 * static_cast<std::size_t>(r) + 3);
    offsets.push_back(want.size());
    for (std::size_t j = 0; j < counts.back(); ++j) want.push_back(gather_input(r, j));
  }
  const std::size_t me = static_cast<std::size_t>(rank());
  std::vector<double> mine(counts[me]), in_place(want.size(), -1.0);
  for (std::size_t j = 0; j < counts[me]; ++j)
    mine[j] = in_place[offsets[me] + j] = gather_input(rank(), j);
  auto send = to_device(comm(), mine, type);
  auto recv = comm().allocate(want.size() * core::dtype_bytes(type));
  comm().all_gatherv(send->data(), recv->data(), counts, type);
  expect_values(to_host(comm(), *recv, type), want, type, "out of place");
  auto both = to_device(comm(), in_place, type);
  comm().all_gatherv(at(*both, offsets[me], type), both->data(), counts, type);
  expect_values(to_host(comm(), *both, type), want, type, "in place");
  const std::vector<std::size_t> too_few(counts.size() + 1, 1);
  EXPECT_THROW(comm().all_gatherv(send->data(), recv->data(), too_few, type),
               std::invalid_argument);
}

/// Element j that rank `from` sends to rank `to` in the all-to-all tests.
double exchanged(int from, int to, std::size_t j) {
  return 10000.0 * from + 100.0 * to + static_cast<double>(j);
}

TEST_F(WithNccl, AllToAllSendsBlockPToRankP) {
  const DType type = DType::int64;
  const std::size_t count = 13, n = static_cast<std::size_t>(size());
  std::vector<double> send_values(n * count), want(n * count);
  for (int p = 0; p < size(); ++p) {
    for (std::size_t j = 0; j < count; ++j) {
      send_values[p * count + j] = exchanged(rank(), p, j);
      want[p * count + j] = exchanged(p, rank(), j);
    }
  }
  auto send = to_device(comm(), send_values, type);
  auto recv = comm().allocate(send->bytes());
  comm().all_to_all(send->data(), recv->data(), count, type);
  expect_values(to_host(comm(), *recv, type), want, type, "all_to_all");
}

TEST_F(WithNccl, AllToAllvSendsUnequalBlocks) {
  const DType type = DType::fp32;
  // rank r sends r + 2p + 1 elements to rank p, so it receives p + 2r + 1 from rank p.
  std::vector<std::size_t> send_counts, recv_counts;
  std::vector<double> send_values, want;
  for (int p = 0; p < size(); ++p) {
    send_counts.push_back(static_cast<std::size_t>(rank() + 2 * p + 1));
    recv_counts.push_back(static_cast<std::size_t>(p + 2 * rank() + 1));
    for (std::size_t j = 0; j < send_counts.back(); ++j)
      send_values.push_back(exchanged(rank(), p, j));
    for (std::size_t j = 0; j < recv_counts.back(); ++j) want.push_back(exchanged(p, rank(), j));
  }
  auto send = to_device(comm(), send_values, type);
  auto recv = comm().allocate(want.size() * core::dtype_bytes(type));
  comm().all_to_allv(send->data(), send_counts, recv->data(), recv_counts, type);
  expect_values(to_host(comm(), *recv, type), want, type, "all_to_allv");
  const std::vector<std::size_t> too_few(send_counts.size() + 1, 1);
  EXPECT_THROW(comm().all_to_allv(send->data(), too_few, recv->data(), recv_counts, type),
               std::invalid_argument);
}

TEST_F(WithNccl, BroadcastCopiesTheRootsData) {
  const DType type = DType::bf16;
  const int root = size() - 1;
  const std::size_t count = 300;
  std::vector<double> want(count), mine(count, -1.0);
  for (std::size_t i = 0; i < count; ++i) want[i] = static_cast<double>(i % 7) + 1.0;
  if (rank() == root) mine = want;
  auto data = to_device(comm(), mine, type);
  comm().broadcast(data->data(), data->data(), count, type, root);
  expect_values(to_host(comm(), *data, type), want, type, "broadcast in place");
  auto send = to_device(comm(), mine, type);
  auto recv = to_device(comm(), std::vector<double>(count, -1.0), type);
  comm().broadcast(send->data(), recv->data(), count, type, root);
  expect_values(to_host(comm(), *recv, type), want, type, "broadcast out of place");
}

TEST_F(WithNccl, TimerGivesOneIntervalPerPairOfMarksThenForgets) {
  const std::size_t count = std::size_t{1} << 18;
  auto buffer = comm().allocate(count * sizeof(float));
  auto timer = comm().timer();
  timer->mark();
  comm().all_reduce(buffer->data(), buffer->data(), count, DType::fp32, ReduceOp::sum);
  timer->mark();
  comm().all_reduce(buffer->data(), buffer->data(), count, DType::fp32, ReduceOp::sum);
  timer->mark();
  const std::vector<double> elapsed_s = timer->intervals();
  ASSERT_EQ(elapsed_s.size(), 2u);
  for (const double s : elapsed_s) EXPECT_GE(s, 0.0);
  EXPECT_TRUE(timer->intervals().empty());  // the marks are forgotten
  timer->mark();
  EXPECT_TRUE(timer->intervals().empty());  // one mark: no interval
  comm().barrier();
}

TEST_F(WithNccl, SubCommunicatorOfOneRankReducesAlone) {
  NcclCommunicator self(MPI_COMM_SELF, context(), kWaitLimitS);
  EXPECT_EQ(self.rank(), 0);
  EXPECT_EQ(self.size(), 1);
  const std::vector<double> values = reduce_inputs(rank(), 64);
  auto data = to_device(self, values, DType::fp32);
  self.all_reduce(data->data(), data->data(), values.size(), DType::fp32, ReduceOp::sum);
  expect_values(to_host(self, *data, DType::fp32), values, DType::fp32, "size-1 all_reduce");
}

/// The value of every int32 element after cudaMemsetAsync(..., 0x01, ...): bytes 01 01 01 01.
constexpr std::int32_t kOnes = 0x01010101;

/// recv [count] of int32 after `reduce` (blocking or started) on inputs written by the compute
/// stream just before it, copied by the compute stream just after it; only the context's fence
/// waits on the host, so the result is right only if the collective is ordered on the device
/// between the two compute-stream operations.
template <class Reduce>
std::vector<std::int32_t> reduced_between_compute(device::CudaContext& ctx, std::size_t count,
                                                  Reduce reduce) {
  device::DeviceBuffer<std::int32_t> send(count), recv(count), copy(count);
  SCALETUNE_CUDA_CHECK(cudaMemsetAsync(recv.data(), 0, recv.size_bytes(), ctx.compute_stream()));
  SCALETUNE_CUDA_CHECK(cudaMemsetAsync(copy.data(), 0, copy.size_bytes(), ctx.compute_stream()));
  ctx.fence();
  SCALETUNE_CUDA_CHECK(cudaMemsetAsync(send.data(), 0x01, send.size_bytes(), ctx.compute_stream()));
  reduce(send.data(), recv.data(), count);
  SCALETUNE_CUDA_CHECK(cudaMemcpyAsync(copy.data(), recv.data(), copy.size_bytes(),
                                       cudaMemcpyDeviceToDevice, ctx.compute_stream()));
  ctx.fence();
  return copy.to_host();
}

TEST_F(WithNccl, BlockingCollectiveIsOrderedBetweenComputeWork) {
  const std::size_t count = std::size_t{1} << 24;  // 64 MiB: long enough to expose a race
  const auto got =
      reduced_between_compute(context(), count, [&](void* send, void* recv, std::size_t n) {
        comm().all_reduce(send, recv, n, DType::int32, ReduceOp::sum);
      });
  const std::vector<std::int32_t> want(count, kOnes * size());
  EXPECT_EQ(got, want);
}

TEST_F(WithNccl, StartedAllReduceIsOrderedAfterWaitStarted) {
  const std::size_t count = std::size_t{1} << 24;
  const auto got =
      reduced_between_compute(context(), count, [&](void* send, void* recv, std::size_t n) {
        comm().start_all_reduce(send, recv, n, DType::int32, ReduceOp::sum);
        comm().wait_started();  // returns at once; the compute stream waits on the device
      });
  const std::vector<std::int32_t> want(count, kOnes * size());
  EXPECT_EQ(got, want);
}

TEST_F(WithNccl, StartedAllReducesMatchBlockingOnesBitForBit) {
  struct Case {
    DType type;
    ReduceOp op;
    std::size_t count;
  };
  const Case cases[] = {{DType::fp32, ReduceOp::sum, 1},
                        {DType::fp64, ReduceOp::sum, 1000},
                        {DType::bf16, ReduceOp::sum, 4097},
                        {DType::fp32, ReduceOp::avg, 100003},
                        {DType::fp64, ReduceOp::avg, 7}};
  std::vector<std::unique_ptr<core::CommBuffer>> sends, started, blocking;
  for (const Case& c : cases) {
    sends.push_back(to_device(comm(), reduce_inputs(rank(), c.count), c.type));
    started.push_back(comm().allocate(sends.back()->bytes()));
    blocking.push_back(comm().allocate(sends.back()->bytes()));
  }
  for (std::size_t k = 0; k < std::size(cases); ++k)
    comm().start_all_reduce(sends[k]->data(), started[k]->data(), cases[k].count, cases[k].type,
                            cases[k].op);
  while (!comm().progress_started()) {
  }
  comm().wait_started();
  for (std::size_t k = 0; k < std::size(cases); ++k) {
    const Case& c = cases[k];
    SCOPED_TRACE(std::string(core::dtype_key(c.type)) + " " +
                 std::string(core::reduce_op_name(c.op)) + " of " + std::to_string(c.count));
    comm().all_reduce(sends[k]->data(), blocking[k]->data(), c.count, c.type, c.op);
    comm().synchronize();
    std::vector<std::byte> a(started[k]->bytes()), b(blocking[k]->bytes());
    started[k]->download(a);
    blocking[k]->download(b);
    EXPECT_EQ(a, b);
    std::vector<double> want(c.count);
    for (std::size_t i = 0; i < c.count; ++i) want[i] = reduced(size(), i, c.type, c.op);
    expect_values(decode(a, c.type), want, c.type, "started");
  }
  EXPECT_TRUE(comm().progress_started());
}

// Last: an argument error must leave the communicator usable for the teardown only.
TEST_F(WithNccl, InvalidRootThrowsNcclErrorNamingTheCall) {
  auto data = comm().allocate(16);
  try {
    comm().broadcast(data->data(), data->data(), 4, DType::fp32, size());
    ADD_FAILURE() << "expected NcclError";
  } catch (const NcclError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("ncclBroadcast"), std::string::npos) << message;
    EXPECT_NE(message.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << message;
    EXPECT_NE(message.find("NCCL rank " + std::to_string(rank())), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace scaletune::nccl
