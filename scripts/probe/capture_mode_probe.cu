// Which calls the safe layer's frees make are refused while another thread captures in
// global mode (cudaStreamCaptureModeGlobal), and which spoil that capture: each call runs on
// a second thread, on a stream that is not captured, while the main thread's capture is open.
// nvcc -o /tmp/capture_mode_probe scripts/probe/capture_mode_probe.cu && /tmp/capture_mode_probe
#include <cuda_runtime.h>
#include <stdio.h>
#include <thread>

typedef cudaError_t (*Op)(cudaStream_t s, cudaEvent_t ev, void* p);

static cudaError_t free_async(cudaStream_t s, cudaEvent_t, void* p) { return cudaFreeAsync(p, s); }
static cudaError_t wait_event(cudaStream_t s, cudaEvent_t ev, void*) { return cudaStreamWaitEvent(s, ev, 0); }
static cudaError_t record(cudaStream_t s, cudaEvent_t ev, void*) { return cudaEventRecord(ev, s); }
static cudaError_t query(cudaStream_t, cudaEvent_t ev, void*) { return cudaEventQuery(ev); }
static cudaError_t free_sync(cudaStream_t, cudaEvent_t, void* p) { return cudaFree(p); }
static cudaError_t malloc_async(cudaStream_t s, cudaEvent_t, void*) {
  void* q;
  cudaError_t e = cudaMallocAsync(&q, 1 << 20, s);
  return e;
}

static void probe(const char* name, Op op, bool stream_ordered_memory) {
  cudaStream_t captured, other;
  cudaStreamCreateWithFlags(&captured, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  cudaEvent_t ev;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  cudaEventRecord(ev, other);
  void* p = nullptr;
  if (stream_ordered_memory) cudaMallocAsync(&p, 1 << 20, other); else cudaMalloc(&p, 1 << 20);
  cudaStreamSynchronize(other);
  cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal);
  cudaError_t in_thread = cudaSuccess;
  std::thread t([&] { in_thread = op(other, ev, p); });
  t.join();
  cudaGraph_t g = nullptr;
  cudaError_t ended = cudaStreamEndCapture(captured, &g);
  printf("%-34s on another thread: %-32s capture ended: %s\n", name, cudaGetErrorName(in_thread),
         cudaGetErrorName(ended));
  if (g) cudaGraphDestroy(g);
  cudaGetLastError();
  cudaDeviceSynchronize();
}

int main() {
  cudaFree(0);
  probe("cudaFreeAsync", free_async, true);
  probe("cudaMallocAsync", malloc_async, true);
  probe("cudaStreamWaitEvent", wait_event, true);
  probe("cudaEventRecord", record, true);
  probe("cudaEventQuery", query, true);
  probe("cudaFree", free_sync, false);
  return 0;
}
