/**
 * A minimal ustar writer: regular files only, which is what the engine's archive endpoint needs to
 * put ptyhub into a container (`PUT /containers/{id}/archive`), in memory or streamed from a file.
 * The engine creates missing parent directories (0755) itself.
 */

const BLOCK = 512;
/** ustar's name field; longer paths go in the 155-byte prefix field. */
const NAME_BYTES = 100;
const PREFIX_BYTES = 155;

export interface TarFile {
  /** Relative path inside the archive, `/`-separated. */
  path: string;
  mode: number;
  data: Uint8Array;
}

function octal(value: number, width: number): string {
  // Width includes the terminating NUL.
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

function splitPath(path: string): { name: string; prefix: string } {
  if (path.length <= NAME_BYTES) return { name: path, prefix: "" };
  const cut = path.lastIndexOf("/", PREFIX_BYTES);
  if (cut <= 0 || path.length - cut - 1 > NAME_BYTES) throw new Error(`path too long for a tar header: ${path}`);
  return { name: path.slice(cut + 1), prefix: path.slice(0, cut) };
}

function header(file: { path: string; mode: number; size: number }, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => h.set(new TextEncoder().encode(text), offset);
  const { name, prefix } = splitPath(file.path);
  put(0, name);
  put(100, octal(file.mode, 8));
  put(108, octal(0, 8)); // uid: root
  put(116, octal(0, 8)); // gid: root
  put(124, octal(file.size, 12));
  put(136, octal(mtime, 12));
  put(148, "        "); // checksum field counts as spaces while summing
  put(156, "0"); // regular file
  put(257, "ustar\0");
  put(263, "00");
  put(345, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/** The archive of `files`, ended by the two zero blocks tar readers expect. */
export function tarArchive(files: TarFile[], mtime = Math.floor(Date.now() / 1000)): Uint8Array {
  let size = 2 * BLOCK;
  for (const f of files) size += BLOCK + Math.ceil(f.data.length / BLOCK) * BLOCK;
  const out = new Uint8Array(size);
  let at = 0;
  for (const f of files) {
    out.set(header({ ...f, size: f.data.length }, mtime), at);
    at += BLOCK;
    out.set(f.data, at);
    at += Math.ceil(f.data.length / BLOCK) * BLOCK;
  }
  return out;
}

/**
 * A one-file archive as a stream, the file's bytes read as they are sent: a ~100 MB binary goes
 * into a container without being held in memory. `size` must be the file's exact length.
 */
export function tarFileStream(
  entry: { path: string; mode: number; size: number },
  body: ReadableStream<Uint8Array>,
  mtime = Math.floor(Date.now() / 1000),
): ReadableStream<Uint8Array> {
  const padding = (BLOCK - (entry.size % BLOCK)) % BLOCK;
  const reader = body.getReader();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(header(entry, mtime));
        return;
      }
      const { done, value } = await reader.read();
      if (!done) {
        controller.enqueue(value);
        return;
      }
      controller.enqueue(new Uint8Array(padding + 2 * BLOCK));
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
