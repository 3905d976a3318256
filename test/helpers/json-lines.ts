/** A server's stdout read as JSON-RPC over stdio: one JSON value per line, handed on as each line ends. */
export async function readJsonLines(
  stream: ReadableStream<Uint8Array>,
  onMessage: (message: Record<string, any>) => void,
): Promise<void> {
  const dec = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += dec.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onMessage(JSON.parse(line));
    }
  }
}
