/* Test-only raw client of a named pipe: a program that connects to the ptyhub daemon's pipe without
   the user's key. It reads the daemon's first line (its hello), then writes the contents of FILE, and
   prints everything the daemon sends until it hangs up. Usage: pipeclient.exe <pipe> <file> */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

/* How long to wait for a busy pipe instance to come free. */
#define BUSY_WAIT_MS 10000

int main(int argc, char **argv) {
  if (argc != 3) return 100;
  FILE *f = fopen(argv[2], "rb");
  if (!f) return 101;
  static char frames[65536];
  size_t n = fread(frames, 1, sizeof frames, f);
  fclose(f);
  HANDLE pipe;
  for (;;) {
    pipe = CreateFileA(argv[1], GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
    if (pipe != INVALID_HANDLE_VALUE) break;
    if (GetLastError() != ERROR_PIPE_BUSY || !WaitNamedPipeA(argv[1], BUSY_WAIT_MS)) return 102;
  }
  char buf[4096];
  DWORD got, wrote;
  int sent = 0;
  while (ReadFile(pipe, buf, sizeof buf, &got, NULL) && got > 0) {
    fwrite(buf, 1, got, stdout);
    fflush(stdout);
    /* The daemon's hello is its first line: answer it once. */
    if (!sent && memchr(buf, '\n', got)) {
      sent = 1;
      if (!WriteFile(pipe, frames, (DWORD)n, &wrote, NULL) || wrote != n) return 103;
    }
  }
  CloseHandle(pipe);
  return 0;
}
