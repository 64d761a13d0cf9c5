// Costs of the runtime calls the safe layer's bookkeeping may add, beside the calls it wraps.
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
__global__ void empty(){}
#define N 200000
#define T(name, ...) { for(int r=0;r<3;r++){double t0=now(); for(int i=0;i<N;i++){__VA_ARGS__;} double t=(now()-t0)/N; if(r==2) printf("%-28s %8.1f ns\n", name, t);} }
int main(){
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e; cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaStreamCaptureStatus st; unsigned long long id; cudaGraph_t g; const cudaGraphNode_t* deps; const cudaGraphEdgeData* ed; size_t nd; int dev;
  T("cudaStreamIsCapturing", cudaStreamIsCapturing(s,&st));
  T("cudaStreamGetCaptureInfo", cudaStreamGetCaptureInfo(s,&st,&id,&g,&deps,&ed,&nd));
  T("cudaStreamGetCaptureInfo(2)", cudaStreamGetCaptureInfo(s,&st,&id,0,0,0,0));
  T("cudaGetDevice", cudaGetDevice(&dev));
  T("cudaSetDevice(same)", cudaSetDevice(0));
  T("cudaStreamGetDevice", cudaStreamGetDevice(s,&dev));
  void* p;
  T("mallocAsync+freeAsync 1MiB", {cudaMallocAsync(&p, 1<<20, s); cudaFreeAsync(p, s);});
  cudaStreamSynchronize(s);
  T("cudaEventRecord", cudaEventRecord(e, s));
  cudaStreamSynchronize(s);
  T("cudaStreamWaitEvent", cudaStreamWaitEvent(s, e, 0));
  cudaStreamSynchronize(s);
  T("cudaEventQuery(done)", cudaEventQuery(e));
  T("launch empty", {empty<<<1,1,0,s>>>();});
  cudaStreamSynchronize(s);
  T("launch+IsCapturing", {empty<<<1,1,0,s>>>(); cudaStreamIsCapturing(s,&st);});
  cudaStreamSynchronize(s);
  void* q; cudaMalloc(&q, 1<<20);
  T("memsetAsync 4B", cudaMemsetAsync(q, 0, 4, s));
  cudaStreamSynchronize(s);
  // Semantics: a free of non-graph memory inside a capture.
  void* a; cudaMallocAsync(&a, 1<<20, s); cudaStreamSynchronize(s);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaError_t fr = cudaFreeAsync(a, s);
  cudaStreamCaptureStatus cs; cudaStreamIsCapturing(s, &cs);
  cudaGraph_t cg = 0; cudaError_t en = cudaStreamEndCapture(s, &cg);
  printf("freeAsync(outside memory) in capture: %s; status after: %d; end: %s graph=%p\n", cudaGetErrorName(fr), (int)cs, cudaGetErrorName(en), (void*)cg);
  cudaGetLastError();
  // A malloc inside a capture.
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  void* b = 0; cudaError_t mr = cudaMallocAsync(&b, 1<<20, s);
  en = cudaStreamEndCapture(s, &cg);
  printf("mallocAsync in capture: %s ptr=%p; end: %s\n", cudaGetErrorName(mr), b, cudaGetErrorName(en));
  cudaGetLastError();
  // Capture status of the pseudo streams.
  cudaError_t l = cudaStreamIsCapturing(cudaStreamLegacy, &cs);
  cudaError_t pt = cudaStreamIsCapturing(cudaStreamPerThread, &cs);
  printf("IsCapturing legacy: %s, per-thread: %s\n", cudaGetErrorName(l), cudaGetErrorName(pt));
  cudaError_t pc = cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal);
  en = cudaStreamEndCapture(cudaStreamPerThread, &cg);
  printf("capture of per-thread stream: begin %s end %s\n", cudaGetErrorName(pc), cudaGetErrorName(en));
  cudaGetLastError();
  // Event record of a user event during a global capture from this thread on another stream.
  cudaStream_t s2; cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaError_t r2 = cudaEventRecord(e, s2);
  cudaError_t q2 = cudaEventQuery(e);
  cudaError_t w2 = cudaStreamWaitEvent(s2, e, 0);
  cudaError_t ss = cudaStreamSynchronize(s2);
  en = cudaStreamEndCapture(s, &cg);
  printf("during global capture on another stream: record %s query %s wait %s sync %s; end %s\n", cudaGetErrorName(r2), cudaGetErrorName(q2), cudaGetErrorName(w2), cudaGetErrorName(ss), cudaGetErrorName(en));
  cudaGetLastError();
  return 0;
}
