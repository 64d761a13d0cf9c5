// Which way of handing an IPC memory pool's POSIX file descriptor to another process lets
// cudaMemPoolImportFromShareableHandle succeed on this machine: inherited as standard input
// (exec), or sent over a Unix socket (SCM_RIGHTS, as CUDA's IPC samples do), and as
// descriptor 0 or a duplicate (CUDA takes the number as a pointer and refuses null).
// nvcc -o /tmp/ipc_pool_probe scripts/probe/ipc_pool_probe.cu && /tmp/ipc_pool_probe
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int import_fd(const char* how, int fd) {
  cudaSetDevice(0);
  cudaMemPool_t pool;
  cudaError_t e = cudaMemPoolImportFromShareableHandle(
      &pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
  printf("child (%s): import fd %d: %s\n", how, fd, cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    // Descriptor 0 is a null handle pointer; its duplicate is not.
    int as_zero = import_fd("descriptor 0", 0);
    return import_fd("a duplicate of descriptor 0", dup(0)) * 2 + as_zero;
  }
  int supported = 0;
  cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolSupportedHandleTypes, 0);
  printf("supported handle types: %d\n", supported);
  cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  printf("create: %s\n", cudaGetErrorName(cudaMemPoolCreate(&pool, &props)));
  int fd = -1;
  cudaError_t exported =
      cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0);
  printf("export: %s fd %d\n", cudaGetErrorName(exported), fd);
  // 1. inherited as standard input of a new program
  pid_t p = fork();
  if (p == 0) {
    dup2(fd, 0);
    execl(argv[0], argv[0], "child", (char*)0);
    _exit(9);
  }
  int st;
  waitpid(p, &st, 0);
  printf("exec child exit %d\n", WEXITSTATUS(st));
  // 2. sent over a socket to a new program
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  p = fork();
  if (p == 0) {
    close(sv[0]);
    char b;
    struct iovec iov = {&b, 1};
    char ctl[CMSG_SPACE(sizeof(int))];
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    recvmsg(sv[1], &m, 0);
    int got;
    memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof got);
    dup2(got, 0);
    execl(argv[0], argv[0], "child", (char*)0);
    _exit(9);
  }
  close(sv[1]);
  char b = 'x';
  struct iovec iov = {&b, 1};
  char ctl[CMSG_SPACE(sizeof(int))];
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  sendmsg(sv[0], &m, 0);
  waitpid(p, &st, 0);
  printf("socket child exit %d\n", WEXITSTATUS(st));
  // 3. a forked child without exec (no CUDA call made in it before)
  return 0;
}
