/** Hand-built zip tails for tests of the attachment sniffer: zip64 records and damaged directories. */

/** End of central directory; `records` 0xffff and `cdOffset` 0xffffffff announce zip64. */
export function eocd(records: number, cdSize: number, cdOffset: number, comment = 0): Buffer {
  const b = Buffer.alloc(22)
  b.writeUInt32LE(0x06054b50, 0)
  b.writeUInt16LE(records & 0xffff, 8)
  b.writeUInt16LE(records & 0xffff, 10)
  b.writeUInt32LE(cdSize >>> 0, 12)
  b.writeUInt32LE(cdOffset >>> 0, 16)
  b.writeUInt16LE(comment & 0xffff, 20)
  return b
}

/** zip64 end of central directory locator pointing at `recordOffset`. */
export function zip64Locator(recordOffset: bigint): Buffer {
  const b = Buffer.alloc(20)
  b.writeUInt32LE(0x07064b50, 0)
  b.writeBigUInt64LE(BigInt.asUintN(64, recordOffset), 8)
  b.writeUInt32LE(1, 16)
  return b
}

/** zip64 end of central directory record. */
export function zip64Record(records: bigint, cdSize: bigint, cdOffset: bigint): Buffer {
  const b = Buffer.alloc(56)
  b.writeUInt32LE(0x06064b50, 0)
  b.writeBigUInt64LE(44n, 4)
  b.writeBigUInt64LE(BigInt.asUintN(64, records), 24)
  b.writeBigUInt64LE(BigInt.asUintN(64, records), 32)
  b.writeBigUInt64LE(BigInt.asUintN(64, cdSize), 40)
  b.writeBigUInt64LE(BigInt.asUintN(64, cdOffset), 48)
  return b
}

/**
 * A 128-byte upload that sniffs as a zip and carries a zip64 record announcing 2^33 entries:
 * the reader starts reading the directory and then rejects, which used to leave that read
 * opening the file after the upload's temp file was gone.
 */
export function zip64Bomb(records = 1n << 33n): Buffer {
  const head = Buffer.from('PK\x03\x04' + 'x'.repeat(26), 'latin1')
  return Buffer.concat([head, zip64Record(records, 0n, 0n), zip64Locator(BigInt(head.length)), eocd(0xffff, 0, 0xffffffff)])
}

/** Offset of the last end-of-central-directory signature in a zip, or -1. */
export function eocdAt(zip: Buffer): number {
  return zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
}

/** A real zip with its directory end rewritten as zip64, pointing wherever `seed` says. */
export function asZip64(zip: Buffer, records: bigint, cdSize: bigint, cdOffset: bigint, locatorOffset?: bigint): Buffer {
  const at = eocdAt(zip)
  const body = at >= 0 ? zip.subarray(0, at) : zip
  const rec = zip64Record(records, cdSize, cdOffset)
  return Buffer.concat([body, rec, zip64Locator(locatorOffset ?? BigInt(body.length)), eocd(0xffff, 0xffffffff, 0xffffffff)])
}

/** A real zip with its end record's counts and offsets replaced. */
export function withEocd(zip: Buffer, records: number, cdSize: number, cdOffset: number, comment = 0): Buffer {
  const at = eocdAt(zip)
  const body = at >= 0 ? zip.subarray(0, at) : zip
  return Buffer.concat([body, eocd(records, cdSize, cdOffset, comment)])
}

/** A real zip with `cut` bytes removed from inside its central directory. */
export function truncatedDirectory(zip: Buffer, cut: number): Buffer {
  const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
  if (cd < 0) return zip
  const at = cd + (cut % Math.max(1, zip.length - cd))
  return Buffer.concat([zip.subarray(0, at), zip.subarray(Math.min(zip.length, at + 1 + (cut % 64)))])
}
