#include "assay/mpi/distributor.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "assay/core/error.hpp"

namespace assay::mpi {
namespace {

enum Tag : int { kReady = 1, kResult = 2, kJob = 3, kStop = 4 };

void send_job(int to, std::uint64_t job) {
  MPI_Send(&job, 1, MPI_UINT64_T, to, kJob, MPI_COMM_WORLD);
}

void send_stop(int to) {
  MPI_Send(nullptr, 0, MPI_BYTE, to, kStop, MPI_COMM_WORLD);
}

// RESULT message: 8 bytes of job number, then the payload.
std::vector<char> result_message(std::uint64_t job, const std::string& payload) {
  std::vector<char> bytes(sizeof(job) + payload.size());
  std::memcpy(bytes.data(), &job, sizeof(job));
  std::memcpy(bytes.data() + sizeof(job), payload.data(), payload.size());
  return bytes;
}

void worker(const std::function<std::string(std::size_t)>& run) {
  MPI_Send(nullptr, 0, MPI_BYTE, 0, kReady, MPI_COMM_WORLD);
  for (;;) {
    MPI_Status status;
    std::uint64_t job = 0;
    MPI_Recv(&job, 1, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == kStop) return;
    const std::vector<char> message = result_message(job, run(static_cast<std::size_t>(job)));
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, kResult,
             MPI_COMM_WORLD);
  }
}

// Rank 0: the queue of jobs, a local worker thread, and the message loop.
class Coordinator {
 public:
  Coordinator(const std::vector<std::size_t>& order, int size,
              const std::function<std::string(std::size_t)>& run,
              const std::function<void(std::size_t, int, const std::string&)>& on_result)
      : queue_(order.begin(), order.end()), remote_(size - 1), run_(run), on_result_(on_result) {}

  void operator()() {
    std::thread local([this] { local_worker(); });
    while (remote_ > 0 || !local_done() || !inbox_empty()) {
      const bool busy = drain_inbox() | serve_one_message();
      if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    local.join();
    drain_inbox();
  }

 private:
  bool next(std::size_t& job) {
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return false;
    job = queue_.front();
    queue_.pop_front();
    return true;
  }

  void local_worker() {
    std::size_t job = 0;
    while (next(job)) {
      std::string payload = run_(job);
      std::lock_guard lock(mutex_);
      inbox_.emplace_back(job, std::move(payload));
    }
    std::lock_guard lock(mutex_);
    local_done_ = true;
  }

  bool local_done() {
    std::lock_guard lock(mutex_);
    return local_done_;
  }
  bool inbox_empty() {
    std::lock_guard lock(mutex_);
    return inbox_.empty();
  }

  bool drain_inbox() {
    std::deque<std::pair<std::size_t, std::string>> ready;
    {
      std::lock_guard lock(mutex_);
      ready.swap(inbox_);
    }
    for (const auto& [job, payload] : ready) on_result_(job, 0, payload);
    return !ready.empty();
  }

  bool serve_one_message() {
    if (remote_ == 0) return false;
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return false;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> bytes(static_cast<std::size_t>(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kResult) {
      ASSAY_ASSERT(bytes.size() >= sizeof(std::uint64_t));
      std::uint64_t job = 0;
      std::memcpy(&job, bytes.data(), sizeof(job));
      on_result_(static_cast<std::size_t>(job), status.MPI_SOURCE,
                 std::string(bytes.data() + sizeof(job), bytes.size() - sizeof(job)));
    }
    std::size_t job = 0;
    if (next(job)) {
      send_job(status.MPI_SOURCE, job);
    } else {
      send_stop(status.MPI_SOURCE);
      --remote_;
    }
    return true;
  }

  std::mutex mutex_;
  std::deque<std::size_t> queue_;
  std::deque<std::pair<std::size_t, std::string>> inbox_;
  bool local_done_ = false;
  int remote_;
  const std::function<std::string(std::size_t)>& run_;
  const std::function<void(std::size_t, int, const std::string&)>& on_result_;
};

class WorldDistributor : public batch::JobDistributor {
 public:
  WorldDistributor() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool any(bool flag) override {
    int mine = flag ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all != 0;
  }
  bool broadcast(bool flag) override {
    int value = flag ? 1 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value != 0;
  }
  void distribute(
      const std::vector<std::size_t>& order, const std::function<std::string(std::size_t)>& run,
      const std::function<void(std::size_t, int, const std::string&)>& on_result) override {
    if (rank_ == 0) {
      Coordinator(order, size_, run, on_result)();
    } else {
      worker(run);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

Session::Session(int& argc, char**& argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fail("MPI_Init_thread failed: MPI could not start");
  }
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    fail("this MPI library does not support MPI_THREAD_FUNNELED, which assay needs");
  }
}

Session::~Session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::unique_ptr<batch::JobDistributor> world_distributor() {
  return std::make_unique<WorldDistributor>();
}

}  // namespace assay::mpi
