/**
 * A flood drained in its own process: runs `yes` in a PTY (Bun's terminal option) and discards
 * what it reads. On SIGTERM it prints the bytes read and exits. Used as the bare-PTY baseline's
 * session A, so that the process measuring session B is not the one reading the flood.
 */
let bytes = 0;
const proc = Bun.spawn(["yes"], {
  terminal: {
    cols: 120,
    rows: 40,
    data: (_t, data) => {
      bytes += data.length;
    },
  },
});
const stop = () => {
  proc.kill("SIGKILL");
  process.stdout.write(`${bytes}\n`);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdout.write("ready\n");
