// The probe wire format: the prober sends one 16-byte frame and the answerer
// echoes it. The first byte tells a probe connection from HTTP on the same
// port (no HTTP method starts with it); the rest carries a sequence number,
// so that a late answer to a timed-out probe is never taken for a new one.

export const FRAME_BYTES = 16;
export const FRAME_MARK = 0x01;

export function frame(sequence: number): Buffer {
  const bytes = Buffer.alloc(FRAME_BYTES);
  bytes[0] = FRAME_MARK;
  bytes.writeDoubleBE(sequence, 8);
  return bytes;
}

export function sequenceOf(bytes: Buffer): number {
  return bytes.readDoubleBE(8);
}
