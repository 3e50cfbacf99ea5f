'use strict';
// The message board of docs/PROTOCOL.md (part 1) on plain Node.js: no packages.
// Written from the protocol document alone; clause numbers in comments.

const fs = require('fs');
const path = require('path');
const os = require('os');
const crypto = require('crypto');

const VERSION = 1;
const RECORD = 256;
const MAX_BODY = 65536;
const MAX_FILE = MAX_BODY + 4096;                                    // a message file: header + body
const MAX_UNREAD = 1000;
const SCRATCH_AGE = 600e3;                                           // S1, ms by the share's clock
const SPARE_REFRESH = 120;                                           // s: a kept private lock folder's owner is rewritten this often (S1)
const TRASH_AGE = 7 * 86400e3;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
// N1: Windows device names (Microsoft's "Naming Files, Paths, and Namespaces"): COM0-9 and LPT0-9
// include the superscript digits 1, 2, 3 (which NAME_RE already keeps out)
const RESERVED = new Set(['con', 'prn', 'aux', 'nul']);
for (const d of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '\u00b9', '\u00b2', '\u00b3']) {
  RESERVED.add('com' + d); RESERVED.add('lpt' + d);
}
const HOST = (os.hostname() || 'host').slice(0, 24);
// I6, L4: host name and boot id (Linux); empty where there is no boot id to read
// host / boot id / pid namespace (two containers on one host share the first two, not their pids)
const MACHINE = (() => {
  let b = '';
  try { b = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(); } catch (e) { return ''; }
  if (!b) return '';
  let ns = '';
  try { ns = fs.readlinkSync('/proc/self/ns/pid'); } catch (e) { /* not Linux */ }
  return [os.hostname(), b, ns].filter((x) => x).join('/');
})();
const BEAT_EVERY = 1;                                                // s between beats of `alive` (I6)
// Whether the process a record names runs: true/false on this machine (same host and boot),
// null when that cannot be told here (then a heartbeat decides)
function pidAlive(f) {
  if (!MACHINE || f.machine !== MACHINE || !/^[1-9][0-9]{0,9}$/.test(f.pid || '') || parseInt(f.pid, 10) > 2 ** 31 - 1) return null;
  if (process.platform === 'win32') return null;
  try { process.kill(parseInt(f.pid, 10), 0); } catch (e) { return e.code !== 'ESRCH'; }
  try {                                                              // exited, not yet reaped (Linux): runs no more
    const stat = fs.readFileSync(`/proc/${parseInt(f.pid, 10)}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 1).trim()[0] !== 'Z';
  } catch (e) { return true; }
}
function memberMac(secret, name, run) {                              // I6 with a shared secret
  return crypto.createHmac('sha256', secret).update(Buffer.from(`cardstand-member-mac ${VERSION}\n${name}\n${run}\n`, 'utf8')).digest('hex');
}
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const { Worker, isMainThread, workerData, parentPort } = (() => { try { return require('worker_threads'); } catch (e) { return {}; } })();
const C = fs.constants;
const NOFOLLOW = C.O_NOFOLLOW || 0;                                 // not on Windows
const NONBLOCK = C.O_NONBLOCK || 0;
const DIRECTORY = C.O_DIRECTORY || 0;
// Node has no openat(): on Linux /proc/self/fd/N/<name> resolves <name> inside the folder
// opened as N, whatever has been renamed since, so clean-up cannot be led outside by a swap.
const PROC_FD = (() => { try { return process.platform === 'linux' && fs.statSync('/proc/self/fd').isDirectory(); } catch (e) { return false; } })();

function sleep(ms) { if (ms > 0) Atomics.wait(SLEEPER, 0, 0, ms); }
function now() { return Number(process.hrtime.bigint()) / 1e9; }   // monotonic seconds (L3)
function token() { return crypto.randomBytes(8).toString('hex'); }

class InvalidArgument extends Error {}
class MemberBusy extends Error {}                                    // I6: the name's run is alive
class Replaced extends Error {}                                      // I6: another run took our name
class LockTimeout extends Error {}
class LockLost extends LockTimeout {}                                // L2: taken from us while held
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);
const FRESH_MARGIN = 1;                                              // L3: s after L for a first wait
const CLOSE_WAIT = 2;                                                // M5: s close() waits for the lock
const MARKER = 'cardstand.board';
class NotAFile extends Error {                                       // a link, FIFO, device, folder...
  constructor(p, what) { super(`${p} is ${what}, not a plain file`); this.what = what; }
}
class Damaged extends Error {}
class Rejected extends Error {                                       // A4: a missing or wrong MAC
  constructor(sender, senderRun, seq, reason) {
    super(reason);
    this.info = { sender, senderRun, seq, reason };
  }
}

function checkName(name, what = 'name') {                            // N1
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw new InvalidArgument(`invalid ${what} ${JSON.stringify(name)}: use 1-32 letters, digits, '-' or '_'`);
  }
  if (RESERVED.has(name.toLowerCase())) throw new InvalidArgument(`invalid ${what} ${name}: a Windows device name`);
  return name;
}

function encodeBody(body) {                                          // N3
  if (typeof body !== 'string') throw new InvalidArgument('message body must be text');
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/.test(body)) {
    throw new InvalidArgument('message body is not valid Unicode');
  }
  const data = Buffer.from(body, 'utf8');
  if (data.length > MAX_BODY) throw new InvalidArgument(`message body is ${data.length} bytes; the limit is ${MAX_BODY}`);
  return data;
}

// -- text from the board, made safe for a terminal (the same output as comm.text.visible) -------
const ESCAPES = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r' };
function isBidi(c) {
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}
// `limit` cuts the escaped text to that many characters (code points), the last one "…".
function visible(s, limit = null) {
  s = typeof s === 'string' ? s : String(s);
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ESCAPES[c]) out += ESCAPES[c];
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (isBidi(c)) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  if (limit !== null && limit !== undefined) {
    const chars = Array.from(out);
    if (chars.length > limit) out = chars.slice(0, Math.max(0, limit - 1)).join('') + '\u2026';
  }
  return out;
}

// -- the shared secret (A1) --------------------------------------------------------------------------
const MAX_SECRET = 4096;       // bytes (A1)
function loadSecret(secretFile = null, env = process.env) {
  let raw;
  if (secretFile) {
    let st;
    try { st = fs.statSync(secretFile); } catch (e) {
      throw new InvalidArgument(`cannot read the secret file ${secretFile}: ${e.message}`);
    }
    if (!st.isFile()) throw new InvalidArgument(`cannot read the secret file ${secretFile}: not a regular file`);
    if (st.size > MAX_SECRET) {
      throw new InvalidArgument(`the secret file ${secretFile} is longer than ${MAX_SECRET} bytes`);
    }
    try { raw = fs.readFileSync(secretFile); } catch (e) {
      throw new InvalidArgument(`cannot read the secret file ${secretFile}: ${e.message}`);
    }
    if (raw.length > MAX_SECRET) {
      throw new InvalidArgument(`the secret file ${secretFile} is longer than ${MAX_SECRET} bytes`);
    }
    if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) raw = raw.subarray(3);   // Notepad's BOM
  } else if (env.CARDSTAND_SECRET !== undefined) raw = Buffer.from(env.CARDSTAND_SECRET, 'utf8');
  else return null;
  const ws = (b) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
  let start = 0, end = raw.length;
  while (start < end && ws(raw[start])) start++;
  while (end > start && ws(raw[end - 1])) end--;
  if (start === end) throw new InvalidArgument('the shared secret is empty');
  return Buffer.from(raw.subarray(start, end));
}

function macOf(secret, from, fromRun, to, toRun, seq, data) {        // A2
  const h = crypto.createHmac('sha256', secret);
  h.update(Buffer.from(`cardstand-mac 1\n${from}\n${fromRun}\n${to}\n${toRun}\n${seq}\n`, 'latin1'));
  h.update(data);
  return h.digest('hex');
}

function record(text) {                                              // R1
  const b = Buffer.from(text, 'utf8');
  if (b.length >= RECORD) throw new Error('record too long');
  return Buffer.concat([b, Buffer.alloc(RECORD - 1 - b.length, 0x20), Buffer.from('\n')]);
}

const PASSING = new Set(['EIO', 'EBUSY', 'EAGAIN', 'EACCES', 'EPERM']);  // a share's passing errors

function lstat(p) { try { return fs.lstatSync(p); } catch (e) { return null; } }
function kind(st) {
  if (!st) return 'missing';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isFile()) return 'a file';
  return 'a device or socket';
}

// Read a plain file by name (B3) without following a link or blocking on a FIFO: opened with
// O_NOFOLLOW|O_NONBLOCK, checked with fstat, at most `limit` + 1 bytes read (the caller can
// tell a file that is too big). null when missing; NotAFile for anything but a plain file.
function readBytes(p, limit = 1 << 20) {
  for (let i = 0; ; i++) {
    let fd;
    try {
      if (!NOFOLLOW) {                                               // Windows: check first (a race stays)
        const st = lstat(p);
        if (st && (st.isSymbolicLink() || st.isDirectory())) throw new NotAFile(p, kind(st));
      }
      fd = fs.openSync(p, C.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      if (e instanceof NotAFile) throw e;
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
      if (e.code === 'ELOOP' || e.code === 'EMLINK') throw new NotAFile(p, 'a symbolic link');
      if (e.code === 'EISDIR') throw new NotAFile(p, 'a folder');
      if (e.code === 'ENXIO') throw new NotAFile(p, 'a device or socket');
      if (!PASSING.has(e.code) || i >= 4) throw e;
      sleep(10 * (i + 1));
      continue;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new NotAFile(p, kind(st));
      let buf = Buffer.alloc(Math.min(limit + 1, Math.max(st.size, 0) + 1));
      let got = 0;
      for (;;) {
        if (got === buf.length) {                                     // grew since fstat
          if (buf.length >= limit + 1) break;
          const bigger = Buffer.alloc(Math.min(limit + 1, buf.length * 2 + 4096));
          buf.copy(bigger, 0, 0, got);
          buf = bigger;
        }
        const n = fs.readSync(fd, buf, got, buf.length - got, null);
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } catch (e) {
      if (e instanceof NotAFile || !PASSING.has(e.code) || i >= 4) throw e;
      sleep(10 * (i + 1));
    } finally { fs.closeSync(fd); }
  }
}
// R1: the first 4096 bytes of a record, the rest ignored (as comm reads them)
function readText(p) { const b = readBytes(p, 4096); return b === null ? null : b.subarray(0, 4096).toString('utf8'); }
// R3, A: a number record that is missing, not a plain file, not a number or longer than 12
// digits counts as 0
function readInt(p) {
  let t;
  try { t = readText(p); } catch (e) { return 0; }
  return numberRecord(t);
}
// R3: a number record's text (null: missing) as a number; 0 when missing or damaged (space,
// tab, CR and LF stripped from both ends, and nothing else)
function numberRecord(t) {
  if (t === null) return 0;
  t = t.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  return /^[0-9]{1,12}$/.test(t) ? parseInt(t, 10) : 0;
}
// R1: after the first line, `key: value` lines (a CR before the newline dropped); a line without
// ': ' or with nothing before it is skipped; the first value of a key counts; spaces and tabs
// around a value (the padding) are stripped, keys are taken as written
function fields(text) {
  const f = Object.create(null);
  for (let line of (text || '').split('\n').slice(1)) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const i = line.indexOf(': ');
    const k = line.slice(0, i);
    if (i > 0 && !(k in f)) f[k] = line.slice(i + 2).replace(/^[ \t]+|[ \t]+$/g, '');
  }
  return f;
}
function exists(p) { return lstat(p) !== null; }
function present(p) {                                                // B3: by opening, not a cached stat
  try { fs.closeSync(fs.openSync(p, C.O_RDONLY | NOFOLLOW | NONBLOCK)); return true; } catch (e) {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return false;
    return exists(p);                                                // a link, a folder (Windows), busy...
  }
}
function remove(p) { try { fs.unlinkSync(p); return true; } catch (e) { return false; } }

// Remove a file or a folder tree without ever following a link: every entry is looked at with
// lstat, a link (or FIFO, device) is unlinked as itself, and a folder is entered through its
// own descriptor on Linux (/proc/self/fd), so a folder swapped for a link after the lstat is
// not followed either. Elsewhere a race stays open between the lstat and the listing.
function removeTree(p, depth = 0) {
  const st = lstat(p);
  if (!st) return;
  if (!st.isDirectory()) { remove(p); return; }
  if (depth > 32) return;                                            // leave absurd depths for later
  let fd = null;
  let dir = p;
  if (PROC_FD && DIRECTORY && NOFOLLOW) {
    try { fd = fs.openSync(p, C.O_RDONLY | DIRECTORY | NOFOLLOW); } catch (e) { return; }   // swapped: leave it
    dir = `/proc/self/fd/${fd}`;
  }
  try {
    let entries = [];
    try { entries = fs.readdirSync(dir); } catch (e) { /* later */ }
    for (const e of entries) removeTree(path.join(dir, e), depth + 1);
  } finally { if (fd !== null) fs.closeSync(fd); }
  try { fs.rmdirSync(p); } catch (e) { /* a link now (ENOTDIR), or busy: later */ }
}

function writeScratch(dir, data, durable) {                          // B2
  const p = path.join(dir, `${HOST}-${process.pid}-${token()}.tmp`);
  // O_EXCL: never through a link planted under this name
  const fd = fs.openSync(p, C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, 0o666);
  try {
    try {
      writeAll(fd, data);
      if (durable) fs.fsyncSync(fd);
    } finally { fs.closeSync(fd); }                                  // B4
  } catch (e) { remove(p); throw e; }                                // T3: a failed write leaves nothing
  return p;
}
function writeAll(fd, data) {
  for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off, data.length - off);
}
function replaceWith(dir, target, data, durable) {                   // R2
  const t = writeScratch(dir, data, durable);
  // SMB refuses to replace a file another client has open: retry briefly.
  // A rename replaces a link at `target` itself: it never writes through it.
  for (let i = 0; ; i++) {
    try { fs.renameSync(t, target); return; } catch (e) {
      // B7: a folder (or anything a rename will not replace) where a record belongs is moved, as
      // itself, into the board's trash/ (beside `dir`, the board's tmp/), then the rename again
      const st = lstat(target);
      if (i < 2 && st && st.isDirectory()) {
        try { fs.renameSync(target, path.join(path.dirname(dir), 'trash', `${token()}-${path.basename(target)}`)); continue; } catch (err) { /* below */ }
      }
      if (i >= 20 || !['EEXIST', 'EBUSY', 'EACCES', 'EPERM', 'EIO', 'EAGAIN'].includes(e.code)) { remove(t); throw e; }
      sleep(Math.min(10 * (i + 1), 50));
    }
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(buf) {
  let c = 0xFFFFFFFF;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >>> 8);
  return (c ^ 0xFFFFFFFF) >>> 0;
}

function msgName(seq) { return String(seq).padStart(12, '0') + '.msg'; }

function frame(sender, senderRun, to, toRun, seq, data, secret = null) {   // M1, A2
  let head = `cardstand-msg ${VERSION}\nfrom: ${sender}\nfrom-run: ${senderRun}\nto: ${to}\n` +
    `to-run: ${toRun}\nseq: ${seq}\nlength: ${data.length}\ncrc32: ${crc32(data).toString(16).padStart(8, '0')}\n`;
  if (secret) head += `mac: ${macOf(secret, sender, senderRun, to, toRun, String(seq), data)}\n`;
  return Buffer.concat([Buffer.from(head + '\n', 'ascii'), data]);
}

// M1, M4, A3: parse the file numbered `seq` in the mailbox `key`; Damaged for a file that
// does not parse, Rejected for a missing or wrong MAC when `secret` is given.
const RUN_RE = /^[A-Za-z0-9_-]{0,64}$/;
const DIGITS_RE = /^[0-9]{1,12}$/;
function unframe(raw, seq = null, key = null, secret = null) {
  const end = raw.indexOf('\n\n');
  if (end < 0) throw new Damaged('no header end');
  if (end > 4096) throw new Damaged('header too long');
  const head = raw.subarray(0, end);
  if (head.some((b) => b > 0x7f)) throw new Damaged('header is not ASCII');
  const lines = head.toString('latin1').split('\n');
  if (lines[0] !== `cardstand-msg ${VERSION}`) throw new Damaged('not a version-1 message');
  const f = Object.create(null);
  for (const line of lines.slice(1)) {
    const i = line.indexOf(': ');
    if (i < 0) throw new Damaged('bad header line');
    const k = line.slice(0, i);
    if (k in f) throw new Damaged(`header key ${JSON.stringify(visible(k, 40))} given twice`);
    f[k] = line.slice(i + 2);
  }
  for (const k of ['from', 'from-run', 'to', 'seq', 'length', 'crc32']) {
    if (!(k in f)) throw new Damaged(`no ${k}`);
  }
  if (!DIGITS_RE.test(f.seq) || !DIGITS_RE.test(f.length) || !/^[0-9a-f]{8}$/.test(f.crc32)) throw new Damaged('seq, length or crc32 malformed');
  try { checkName(f.from); checkName(f.to); } catch (e) { throw new Damaged('bad member name'); }
  if (!f['from-run'] || !RUN_RE.test(f['from-run']) || !RUN_RE.test(f['to-run'] || '')) throw new Damaged('run id malformed');
  if (key !== null && f.to.toLowerCase() !== key) throw new Damaged(`addressed to ${f.to}, found in the mailbox of ${key}`);
  if (seq !== null && parseInt(f.seq, 10) !== seq) throw new Damaged(`numbered ${f.seq}, found as message ${seq} (a copy?)`);
  const data = raw.subarray(end + 2);
  if (parseInt(f.length, 10) !== data.length) throw new Damaged(`truncated: ${data.length} of ${f.length} bytes`);
  if (parseInt(f.crc32, 16) !== crc32(data)) throw new Damaged('checksum mismatch');
  let body;
  try { body = new TextDecoder('utf-8', { fatal: true }).decode(data); } catch (e) { throw new Damaged('body is not UTF-8'); }
  const signed = f.mac !== undefined;
  if (secret) {                                                      // A3: constant-time compare
    if (!signed) throw new Rejected(f.from, f['from-run'], seq, 'no MAC (the sender has no shared secret)');
    const want = Buffer.from(macOf(secret, f.from, f['from-run'], f.to, f['to-run'] || '', f.seq, data), 'latin1');
    const got = Buffer.from(f.mac, 'latin1');
    if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) {
      throw new Rejected(f.from, f['from-run'], seq, 'wrong MAC (another secret, or a forged message)');
    }
  }
  return { sender: f.from, body, seq: parseInt(f.seq, 10), toRun: f['to-run'] || '', senderRun: f['from-run'], signed };
}

// Run fn(prefix) where prefix names the folder p itself, never a link: on Linux through a
// descriptor opened with O_DIRECTORY|O_NOFOLLOW (/proc/self/fd/N), elsewhere after an lstat
// (a race stays open there: p could be swapped for a link between the lstat and fn's calls).
// undefined when p is not a real folder.
function withDir(p, fn) {
  if (PROC_FD && DIRECTORY && NOFOLLOW) {
    let fd;
    try { fd = fs.openSync(p, C.O_RDONLY | DIRECTORY | NOFOLLOW); } catch (e) { return undefined; }
    try { return fn(`/proc/self/fd/${fd}`); } finally { fs.closeSync(fd); }
  }
  const st = lstat(p);
  if (!st || !st.isDirectory()) return undefined;
  return fn(p);
}

function writeNew(p, data) {                                         // a new file, never through a link
  const fd = fs.openSync(p, C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, 0o666);
  try { writeAll(fd, data); } finally { fs.closeSync(fd); }
}
// Write a record over a regular file of exactly its size, in place (no new space needed on
// most filesystems): only for our own private lock folder, which nobody else reads.
function overwrite(p, data) {
  const fd = fs.openSync(p, C.O_WRONLY | NOFOLLOW | NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size !== data.length) throw new Error(`${p} is not a record`);
    for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off, data.length - off, off);
  } finally { fs.closeSync(fd); }
}

// The token of our kept private lock folder tmp/lock-<token>, shared with the beating thread,
// which rewrites its owner record while the program is idle so that S1 never judges it old;
// `locked` keeps one writer of that folder at a time across the two threads
class SpareSlot {
  constructor(buffer) {
    this.buffer = buffer || new SharedArrayBuffer(24);
    this.word = new Int32Array(this.buffer, 0, 1);
    this.bytes = new Uint8Array(this.buffer, 8, 16);
  }

  get() { return this.bytes[0] ? Buffer.from(this.bytes).toString('latin1') : null; }

  set(tok) { this.bytes.fill(0); if (tok) this.bytes.set(Buffer.from(tok, 'latin1')); }

  locked(fn) {
    while (Atomics.compareExchange(this.word, 0, 0, 1) !== 0) Atomics.wait(this.word, 0, 1, 5);
    try { return fn(); } finally { Atomics.store(this.word, 0, 0); Atomics.notify(this.word, 0); }
  }

  // rewrite the kept folder's owner (of member `who`) in place (no space needed); false when it is gone
  refresh(scratch, who) {
    return this.locked(() => {
      const tok = this.get();
      if (tok === null) return false;
      try { overwrite(path.join(scratch, 'lock-' + tok, 'owner'), ownerText(who, tok)); return true; } catch (e) { return false; }
    });
  }
}

function ownerText(who, tok) {
  return record(`cardstand-lock 1\ntoken: ${tok}\nname: ${who}\nhost: ${HOST}\nmachine: ${MACHINE.slice(0, 100)}\npid: ${process.pid}`);
}

class Lease {                                                        // section 5
  constructor(board, staleAfter, who) {
    this.board = board;
    this.path = path.join(board.folder, 'lock');
    this.scratch = board.tmp;
    this.staleAfter = staleAfter;
    this.who = who;
    this.token = null;
    this.slot = new SpareSlot();                                     // our private lock folder's token (T2)
    this.spareAt = 0;                                                // when its owner was last written (S1)
    // L3: what the lock looked like and since when, kept across acquire() calls
    this.seen = null;
    this.since = 0;
    this.gaveUp = 0;
  }

  // What is at `lock`: a link there is never a lock (no holder makes one) and is set aside at
  // once, never followed; a plain file (or FIFO...) is judged like a lock whose pair never
  // changes (L4); only a real folder is read through.
  lockStat(p) {
    const st = lstat(p);
    if (st && st.isSymbolicLink() && p === this.path) {
      this.board.setAside(p, 'a symbolic link', 'the lock');
      return lstat(p);
    }
    return st;
  }

  signature(p = this.path) {
    const st = this.lockStat(p);
    if (!st) return null;
    if (!st.isDirectory()) return [Buffer.from(`<${kind(st)}>`).toString('base64'), ''];
    // (a race stays open: `lock` may be swapped for a link after the lstat; these are reads
    // of at most 1 MB of plain files, opened without following a final link and non-blocking)
    const part = (name) => {
      try {
        const b = readBytes(path.join(p, name));
        return b ? b.toString('base64') : '';
      } catch (e) {
        if (e instanceof NotAFile) return Buffer.from(`<${e.what}>`).toString('base64');
        return null;
      }
    };
    const owner = part('owner');
    if (owner === null) return ['<unreadable>', ''];
    const beat = part('beat');
    if (beat === null) return ['<unreadable>', ''];
    return [owner, beat];
  }

  // A share may answer a read with an error now and then: read again for up to 2 s.
  settledSignature(p = this.path) {
    const giveUp = now() + 2;
    let delay = 10;
    for (;;) {
      const sig = this.signature(p);
      if (!sig || sig[0] !== '<unreadable>' || now() >= giveUp) return sig;
      sleep(delay);
      delay = Math.min(delay * 2, 200);
    }
  }

  ownerToken(sig) { return sig ? fields(Buffer.from(sig[0], 'base64').toString('utf8')).token : undefined; }

  get spare() { return this.slot.get(); }

  set spare(tok) { this.slot.set(tok); }

  ownerText(tok) { return ownerText(this.who, tok); }

  // Our private folder tmp/lock-<token>, owner written: kept between tries and refilled by
  // release, so that taking the lock needs no free space (T2).
  prepared() {
    if (this.spare !== null) {
      if (now() - this.spareAt >= SPARE_REFRESH && this.slot.refresh(this.scratch, this.who)) this.spareAt = now();
      return this.spare;
    }
    const tok = token();
    const mine = path.join(this.scratch, 'lock-' + tok);
    fs.mkdirSync(mine);
    try { writeNew(path.join(mine, 'owner'), this.ownerText(tok)); } catch (e) { removeTree(mine); throw e; }
    this.spare = tok;
    this.spareAt = now();
    return tok;
  }

  tryTake() {                                                        // L1
    const tok = this.prepared();
    try { this.slot.locked(() => fs.renameSync(path.join(this.scratch, 'lock-' + tok), this.path)); } catch (e) {
      if (e.code === 'ENOENT') this.spare = null;                    // cleaned up under us (S1)
      /* B5: read back */
    }
    if (this.ownerToken(this.settledSignature()) === tok) { this.token = tok; this.spare = null; return true; }
    return false;
  }

  // The holder an owner record names, for people (L3: a timeout names it).
  describe(owner64) {
    if (owner64 === '<unreadable>') return 'nobody known (its owner record cannot be read)';
    const text = Buffer.from(owner64, 'base64').toString('utf8');
    if (!text) return 'nobody known (it has no owner record)';
    if (text.startsWith('<')) return `nobody known (its owner record is ${visible(text.replace(/^<|>$/g, ''), 80)})`;
    const f = fields(text);
    if (!f.name && !f.pid) return 'nobody known (its owner record is not one)';
    const v = (k) => visible(f[k] || '?', 64);
    return `${v('name')} (pid ${v('pid')} on ${v('host')}${f.machine ? `, machine ${visible(f.machine, 100)}` : ''})`;
  }

  timeoutReason() {
    if (!this.seen) return `the board lock was not obtained within ${this.gaveUp.toFixed(2)} s (it kept changing hands)`;
    return `the board lock was not obtained within ${this.gaveUp.toFixed(2)} s: it is held by ${this.describe(this.seen[0])}, ` +
      `unchanged for ${(now() - this.since).toFixed(1)} s`;
  }

  // L5/L6 where the folder cannot be renamed (SMB, when the client lost track of a file it
  // opened inside): move the owner record aside, check it, delete the rest. Only inside a
  // real folder `lock` (withDir: never through a link).
  dismantle(owner64, label) {
    const aside = path.join(this.scratch, label + '-owner');
    const done = withDir(this.path, (lock) => {
      if (owner64) {
        try { fs.renameSync(path.join(lock, 'owner'), aside); } catch (e) { return false; }
        let moved = null;
        try { moved = readBytes(aside); } catch (e) { moved = null; }
        if (!moved || moved.toString('base64') !== owner64) {
          try { fs.renameSync(aside, path.join(lock, 'owner')); } catch (e) { /* its holder will notice */ }
          return false;
        }
      }
      try { fs.unlinkSync(path.join(lock, 'beat')); } catch (e) { /* none */ }
      return true;
    });
    if (!done) return false;
    try { fs.rmdirSync(this.path); } catch (e) { /* an empty lock folder is judged like any other */ }
    removeTree(aside);
    return true;
  }

  breakStale(sig) {                                                  // L5
    const aside = path.join(this.scratch, 'stale-' + token());
    try { fs.renameSync(this.path, aside); } catch (e) {            // moves a link or file as itself
      if (e.code !== 'ENOENT' && sig[0] !== '<unreadable>') this.dismantle(sig[0], path.basename(aside));
      return;
    }
    const moved = this.settledSignature(aside);
    if (!moved || moved[0] !== sig[0] || moved[1] !== sig[1]) {
      try { fs.renameSync(aside, this.path); } catch (e) { /* its holder will notice */ }
      return;
    }
    removeTree(aside);                                               // never follows a link inside
  }

  // `patient` false: no longer than `timeout` even with nothing watched yet (close, M5)
  acquire(timeout, patient = true) {                                 // L3, L4
    const start = now();
    let deadline = start + timeout;
    let fresh = patient && this.seen === null;                       // nothing watched yet: wait until it can be judged
    let delay = 0.5;
    for (;;) {
      if (this.tryTake()) return true;
      const sig = this.signature();
      const t = now();
      if (sig) {
        // a read error is no news: it neither changes nor resets the observation
        const seen = this.seen;
        if (!seen || (sig[0] !== '<unreadable>' && (sig[0] !== seen[0] || sig[1] !== seen[1]))) {
          this.seen = sig; this.since = t;
        } else if (t - this.since >= this.staleAfter) { this.breakStale(seen); this.seen = null; continue; }
      }
      if (fresh && this.seen) { fresh = false; deadline = Math.max(deadline, this.since + this.staleAfter + FRESH_MARGIN); }
      if (t >= deadline) { this.gaveUp = t - start; return false; }
      sleep(Math.min(delay, (deadline - t) * 1000));
      delay = Math.min(delay * 2, 10);
    }
  }

  isMine() { return this.token !== null && this.ownerToken(this.settledSignature()) === this.token; }

  // L6; false when the lock had been taken from us (we stalled for over L)
  release() {
    if (this.token === null) return true;
    const sig = this.settledSignature();
    const mine = this.ownerToken(sig) === this.token;
    if (mine) {
      // the released lock becomes our next private folder, its owner record overwritten in
      // place with a new token (T2); SMB refuses to rename a folder while another client reads
      // a file in it (for a moment), or for good once its own client lost track of an open
      // file inside: after two refusals, also try taking the lock apart (L5a)
      const next = this.spare === null ? token() : null;
      const aside = path.join(this.scratch, next ? 'lock-' + next : 'released-' + this.token);
      for (let i = 0; i < 30; i++) {
        try {
          fs.renameSync(this.path, aside);
          remove(path.join(aside, 'beat'));
          try {
            if (!next) throw new Error('spare');
            this.slot.locked(() => { overwrite(path.join(aside, 'owner'), this.ownerText(next)); this.spare = next; });
            this.spareAt = now();
          } catch (e) { removeTree(aside); }
          break;
        } catch (e) {
          if (e.code === 'ENOENT') break;
        }
        if (i >= 2 && this.dismantle(sig[0], 'released-' + this.token)) break;
        sleep(Math.min(10 * (i + 1), 50));
      }
    } else if (!sig || sig[0] !== '<unreadable>') {
      this.board.log(`the board lock was taken from us while we held it (stalled or stopped for over ${this.staleAfter} s?)`);
    }
    this.token = null;
    return mine || (sig !== null && sig[0] === '<unreadable>');
  }

  close() {
    this.release();
    if (this.spare !== null) { removeTree(path.join(this.scratch, 'lock-' + this.spare)); this.spare = null; }
  }
}

function defaultLog(text) { try { process.stderr.write(`cardstand: ${text}\n`); } catch (e) { /* no stderr */ } }

class Board {
  constructor(folder, name, { staleAfter = 10, lockTimeout = 10, secret = null, log = defaultLog } = {}) {
    this.name = checkName(name);
    this.key = name.toLowerCase();
    this.folder = folder;
    this.box = path.join(folder, 'box');
    this.mine = path.join(this.box, this.key);
    this.tmp = path.join(folder, 'tmp');
    this.trash = path.join(folder, 'trash');
    this.lockTimeout = lockTimeout;
    this.secret = secret === null || secret === undefined ? null : Buffer.from(secret);
    if (this.secret !== null && !this.secret.length) throw new InvalidArgument('the shared secret is empty');
    this.log = log;
    this.lease = new Lease(this, staleAfter, this.key);
    this.run = null;
    this.lastError = '';
    this.problem = '';                                               // '', gone, full, locked, other (T1)
    this.logged = '';
    this.beats = 0;
    this.counter = new Int32Array(new SharedArrayBuffer(4));
    this.beater = null;
    this.state = '';
    this.lastBeat = 0;
    this.replacedBy = null;
    this.rejected = [];
    // M5: the message last returned to the caller and not yet acknowledged (its number and
    // bytes); it stays on the board until this Board's next receive, talk, wait, quiet, wipe
    // or close consumes it
    this.handed = null;
    this.handedRaw = null;
  }

  // -- nothing outside the board -------------------------------------------------------------
  // Whether folder/parts... is a real folder at every step (lstat: no step is a link).
  sound(parts) {
    let p = this.folder;
    for (const part of parts) {
      p = path.join(p, part);
      const st = lstat(p);
      if (!st || !st.isDirectory()) return st ? kind(st) : 'missing';
    }
    return '';
  }

  // Something that is not a folder where a fixed folder belongs (a link, a file, a FIFO), or a
  // message that is not a file, is moved as itself into trash/ (tmp/ when trash/ itself is the
  // problem); if that fails it is unlinked (a link's target is never touched).
  setAside(p, what, role = null) {
    const base = path.basename(p);
    let done = false;
    for (const d of [this.trash, this.tmp]) {
      if (d === p || this.sound([path.basename(d)])) continue;
      try { fs.renameSync(p, path.join(d, `${token()}-${base}.aside`)); done = true; break; } catch (e) {
        if (e.code === 'ENOENT') return;                              // someone else did it
      }
    }
    if (!done) { const st = lstat(p); if (st && !st.isDirectory()) done = remove(p); }
    this.log(`${p}${role ? ` (${role})` : ''} was ${what}: ${done ? 'set aside' : 'could not be set aside'}`);
  }

  // A fixed folder (box, tmp, trash, box/<key>): made a real folder at every step.
  fixDir(parts) {
    let p = this.folder;
    for (const part of parts) {
      p = path.join(p, part);
      let st = lstat(p);
      if (st && !st.isDirectory()) { this.setAside(p, kind(st), 'not a folder'); st = lstat(p); }
      if (!st) {
        try { fs.mkdirSync(p); } catch (e) { if (e.code !== 'EEXIST') throw e; }
        st = lstat(p);
        if (!st || !st.isDirectory()) throw new Error(`${p} is ${kind(st)}, not a folder`);
      }
    }
    return p;
  }

  // T1: the board folder or its marker missing or unreachable. Nothing is created in such a
  // folder (it may be the mount point of a share no longer mounted); only join makes a board.
  gone() {
    try { return readBytes(path.join(this.folder, MARKER), 64) === null; } catch (e) { return !(e instanceof NotAFile); }
  }

  ready() {
    if (this.gone()) {
      const e = new Error(`the board's marker ${MARKER} is missing: nothing is created there`);
      e.code = 'ENOENT';
      throw e;
    }
    this.fixDir(['tmp']);
    this.fixDir(['trash']);
    this.fixDir(['box']);
    if (this.run !== null) this.fixDir(['box', this.key]);
  }

  // head and tail of a mailbox (R3); a head more than MAX_UNREAD above tail was never written
  // by a sender (M3 stops there) and is ignored, so it can neither stop the search nor fake a
  // full mailbox. A read error other than "missing" or "not a file" fails the operation.
  counters(dir) {
    const num = (name) => {
      let t;
      try { t = readText(path.join(dir, name)); } catch (e) {
        if (e instanceof NotAFile) return 0;
        throw e;
      }
      return numberRecord(t);
    };
    const tail = num('tail');
    let head = num('head');
    if (head - tail > MAX_UNREAD) head = tail;
    return { head, tail };
  }

  join(takeOver = false) {                                           // F2, I1, I6
    fs.mkdirSync(this.folder, { recursive: true });                  // the folder itself is the user's choice
    const marker = path.join(this.folder, 'cardstand.board');
    let m;
    try { m = readBytes(marker, 4096); } catch (e) {
      if (!(e instanceof NotAFile)) throw e;
      this.fixDir(['trash']);                                        // F2: set aside, written anew
      this.setAside(marker, e.what, 'the board marker');
      m = null;
    }
    if (m === null) replaceWith(this.folder, marker, Buffer.from(`cardstand-board ${VERSION}\n`), true);
    else {
      // F2: two words between runs of space, tab, CR and LF (only these: other white space, a BOM,
      // makes it no marker), the version 1 to 9 digits; comm reads it the same way
      const w = m.toString('utf8').replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '').split(/[ \t\r\n]+/);
      if (m.length > 4096 || w.length !== 2 || w[0] !== 'cardstand-board' || !/^[0-9]{1,9}$/.test(w[1])) throw new Error(`${marker} is not a cardstand board marker`);
      if (parseInt(w[1], 10) !== VERSION) throw new Error(`board of protocol version ${visible(w[1], 20)}; this program speaks ${VERSION}`);
    }
    this.ready();
    this.cleanScratch();
    const run = token();
    let text = `cardstand-member ${VERSION}\nname: ${this.name}\nrun: ${run}\nhost: ${HOST}\nmachine: ${MACHINE.slice(0, 100)}\npid: ${process.pid}`;
    if (this.secret !== null) text += `\nmac: ${memberMac(this.secret, this.name, run)}`;
    for (let tries = 0; ; tries++) {
      if (tries === 5) throw new Error(`cannot join ${this.folder} as ${this.name}: the name keeps changing hands`);
      const judged = takeOver ? null : this.memberFields();
      if (judged) this.refuseIfAlive(judged);
      const done = this.withLock(() => {
        if (judged && (this.memberFields().run || '') !== (judged.run || '')) return false;   // judge the newcomer
        this.fixDir(['box', this.key]);
        replaceWith(this.tmp, path.join(this.mine, 'member'), record(text), true);
        this.run = run;
        this.replacedBy = null;
        this.beats = 0;
        this.writeAlive();
        this.cleanConsumed();
        return true;
      });
      if (done) break;
    }
    this.startBeating();
    return this;
  }

  needJoin() {
    if (this.run === null) throw new Error(`${this.name} has not joined ${this.folder}: call join() (Init) first`);
  }

  memberFields() {                                                   // {} when missing or damaged
    try { const t = readText(path.join(this.mine, 'member')); return t === null ? {} : fields(t); } catch (e) { return {}; }
  }

  // aliveBeat, but a record not there (or naming another run) is read again for 0.3 s first:
  // an SMB client may show no file while its writer replaces it (I6)
  aliveBeatSettled(run, unreadable = null) {
    let b = this.aliveBeat(run, unreadable);
    const until = now() + 0.3;
    while (b === null && now() < until) { sleep(75); b = this.aliveBeat(run, unreadable); }
    return b;
  }

  aliveBeat(run, unreadable = null) {                               // the beat of our name's alive record, if it names `run`
    let t;
    try { t = readText(path.join(this.mine, 'alive')); } catch (e) { return unreadable; }
    const f = t === null ? {} : fields(t);
    return f.run === run ? (f.beat || '') : null;
  }

  // I6: a run is alive when its alive record names it and its process runs here, or (elsewhere)
  // its beat changes within L + 1 s
  refuseIfAlive(f) {
    const run = f.run || '';
    if (!/^[0-9A-Za-z_-]{1,64}$/.test(run) || run === this.run) return;
    if (f.machine === MACHINE && MACHINE && f.pid === String(process.pid)) return;
    const local = pidAlive(f);
    if (local === false) return;                                     // its process is gone from this machine
    const first = this.aliveBeatSettled(run);
    if (first === null) return;
    const busy = (how) => {
      const where = `pid ${visible(f.pid || '?', 20)} on ${visible(f.host || '?', 64)}${f.machine ? `, machine ${visible(f.machine, 100)}` : ''}`;
      const e = new MemberBusy(`${this.name} is already on this board and alive (${where}; ${how}): another run of the same name would take its messages.  If that program is truly gone, join again taking over its name`);
      Object.assign(e, { member: f, how });
      this.fail(e.message);
      throw e;
    };
    if (local) busy('its process runs on this machine');
    const start = now();
    while (now() - start < this.lease.staleAfter + 1) {
      sleep(100);
      const b = this.aliveBeatSettled(run, first);                   // a passing share error is no news
      if (b === null) return;
      if (b !== first) busy('its heartbeat goes on');
    }
  }

  // I6: another run holds our name (with a secret: only a member record signed with it counts)
  takenBy() {
    if (this.replacedBy) return this.replacedBy;
    const f = this.memberFields();
    if (!f.run || f.run === this.run) return null;
    if (this.secret !== null) {
      const want = memberMac(this.secret, f.name || '', f.run);
      const got = Buffer.from(f.mac || '');
      if (got.length !== want.length || !crypto.timingSafeEqual(got, Buffer.from(want))) return null;
    }
    this.replacedBy = f;
    this.stopBeating();
    return f;
  }

  checkMember() {
    const f = this.takenBy();
    if (f) throw new Replaced(`another run of ${this.name} (pid ${visible(f.pid || '?', 20)}, host ${visible(f.host || '?', 64)}) has joined this board and taken this name: this run must stop`);
  }

  writeAlive() {
    this.beats = Atomics.add(this.counter, 0, 1) + 1;               // shared with the beating thread
    this.lastBeat = now();
    replaceWith(this.tmp, path.join(this.mine, 'alive'), record(
      `cardstand-alive ${VERSION}\nrun: ${this.run}\nbeat: ${this.beats}\nstate: ${this.state}`), false);
  }

  // I6: a worker thread beats every second while the program waits or computes (this thread
  // blocks in its sleeps and reads); where there are no workers, operations beat when one is due
  startBeating() {
    this.stopBeating();
    if (!Worker) return;
    try {
      this.beater = new Worker(__filename, { workerData: { cardstandBeat: {
        mine: this.mine, tmp: this.tmp, run: this.run, state: this.state, counter: this.counter.buffer,
        spare: this.lease.slot.buffer, who: this.lease.who,
        every: Math.min(BEAT_EVERY, this.lease.staleAfter / 5) } } });
      this.beater.on('error', () => { this.beater = null; });
      this.beater.unref();
    } catch (e) { this.beater = null; }
  }

  stopBeating() {
    if (this.beater) { try { this.beater.terminate(); } catch (e) { /* gone */ } }
    this.beater = null;
  }

  maybeBeat() {
    if (this.run === null || this.replacedBy || now() - this.lastBeat < Math.min(BEAT_EVERY, this.lease.staleAfter / 5)) return;
    try { if (!this.takenBy()) this.writeAlive(); } catch (e) { /* no news */ }
  }

  cleanConsumed() {
    const { tail } = this.counters(this.mine);                       // S2
    withDir(this.mine, (dir) => {
      for (const e of fs.readdirSync(dir)) {
        const mm = /^([0-9]{12})\.msg$/.exec(e);
        if (mm && parseInt(mm[1], 10) <= tail) {
          const st = lstat(path.join(dir, e));
          if (st && !st.isDirectory()) remove(path.join(dir, e));     // unlink never follows
        }
      }
    });
  }

  cleanScratch() {                                                   // S1: the share's clock
    try {
      const probe = writeScratch(this.tmp, Buffer.alloc(0), false);
      const st = lstat(probe);
      remove(probe);
      if (!st) return;
      const nowShare = st.mtimeMs;
      // old scratch, and scratch dated more than 10 minutes in the future (a planted file time);
      // only the names S1 lists (F3)
      const clean = (dir, age, names, folders = names) => withDir(dir, (d) => {
        for (const e of fs.readdirSync(d)) {
          let p = path.join(d, e);
          const s = lstat(p);
          if (!s || !(s.isDirectory() ? folders : names).test(e)) continue;
          const spare = dir === this.tmp && s.isDirectory() && e.startsWith('lock-');
          let t = s.mtimeMs;
          if (spare) {                                               // a kept private lock folder: its owner is rewritten
            const o = lstat(path.join(p, 'owner'));
            if (o && o.isFile() && o.mtimeMs > t) t = o.mtimeMs;
          }
          if (!(nowShare - t > age || t - nowShare > SCRATCH_AGE)) continue;
          if (spare) {                                               // away from the name its member renames to lock
            const aside = path.join(d, 'stale-' + token());
            try { fs.renameSync(p, aside); } catch (err) { continue; }
            p = aside;
          }
          removeTree(p);
        }
      });
      clean(this.tmp, SCRATCH_AGE, /^(?:[^/]+\.tmp|(?:stale|released)-[0-9A-Za-z]+-owner|(?:lock|stale|released)-[0-9A-Za-z]+)$/,
        /^(?:lock|stale|released)-[0-9A-Za-z]+$/);
      clean(this.trash, TRASH_AGE, /^[0-9A-Za-z]+-[^/]+$/);
    } catch (e) { /* skip */ }
  }

  withLock(fn, timeout = this.lockTimeout, patient = true) {
    if (!this.lease.acquire(timeout, patient)) throw new LockTimeout(this.lease.timeoutReason());
    try { return fn(); } finally { this.lease.release(); }
  }

  // M5: the message last returned is acknowledged if the lock can be had within CLOSE_WAIT s;
  // if not, it is returned again to this name's next run (unless that run calls quiet).
  // I6: a closed run is not alive: its alive record goes.
  close() {
    this.stopBeating();
    if (this.handed !== null) {
      try { this.withLock(() => this.acknowledge(), Math.min(this.lockTimeout, CLOSE_WAIT), false); } catch (e) {
        this.log(`${this.name}: message ${this.handed} not acknowledged at close (${e.message}): it will be returned again`);
      }
    }
    try { if (this.run !== null && !this.replacedBy && this.aliveBeat(this.run) !== null) remove(path.join(this.mine, 'alive')); } catch (e) { /* leaving */ }
    this.lease.close();
  }

  // lastError and problem (T1): set by a failure, cleared by a success; logged once while the same
  fail(why, problem = 'other') {
    this.lastError = why;
    this.problem = problem;
    if (this.logged !== problem + why) { this.logged = problem + why; this.log(`${this.name}: ${why}`); }
  }
  ok() { this.lastError = ''; this.problem = ''; this.logged = ''; }
  failed(e, doing = '') {
    const what = doing ? `${doing}: ` : '';
    if (e instanceof Replaced) this.fail(what + e.message, 'replaced');
    else if (e instanceof LockTimeout) this.fail(what + e.message, 'locked');
    else if (NO_SPACE.has(e.code)) this.fail(`${what}no space left on the board's disk (${this.folder}): ${e.message}`, 'full');
    else if (this.gone()) {
      this.fail(`${what}the board folder ${this.folder} is gone or unreachable (deleted, or a share no longer mounted; ` +
        `it is not made again): ${e.message}`, 'gone');
    } else this.fail(what + e.message);
  }

  writeTail(seq) {                                                   // M5; T2: not on a full disk
    try { replaceWith(this.tmp, path.join(this.mine, 'tail'), record(String(seq)), false); } catch (e) {
      if (!NO_SPACE.has(e.code)) throw e;
    }
  }

  trashMessage(p, k) {
    const dest = path.join(this.trash, `${token()}-${this.key}-${msgName(k)}`);
    try { fs.renameSync(p, dest); return; } catch (err) { /* below */ }
    const st = lstat(p);
    if (st && !st.isDirectory()) remove(p);
  }

  oldest() {                                                         // M4
    this.checkMember();                                              // I6: not ours any more?
    const { head, tail } = this.counters(this.mine);
    for (let k = tail + 1; ; k++) {
      const p = path.join(this.mine, msgName(k));
      let raw;
      try { raw = readBytes(p, MAX_FILE); } catch (e) {
        if (!(e instanceof NotAFile)) throw e;
        this.setAside(p, e.what, `message ${k}`);                    // a FIFO, a folder, a link...
        continue;
      }
      if (raw === null) {
        if (k <= head) continue;
        if (k - 1 !== tail) this.writeTail(k - 1);
        return null;
      }
      try {
        if (raw.length > MAX_FILE) throw new Damaged('too big');
        return { seq: k, msg: unframe(raw, k, this.key, this.secret), raw };
      } catch (e) {
        if (e instanceof Rejected) {                                 // A4
          this.rejected.push(e.info);
          this.log(`a message claiming to be from ${visible(e.info.sender, 40)} (run ${visible(e.info.senderRun, 40)}, #${k}) was refused: ${e.info.reason}`);
        } else this.log(`damaged message ${p} set aside: ${e.message}`);
        this.trashMessage(p, k);
      }
    }
  }

  takeRejected() { const r = this.rejected; this.rejected = []; return r; }

  // M5: a message found by oldest() is returned to the caller but stays on the board (file and
  // tail untouched) until the caller comes back: a process killed before the message reached
  // its caller gets it again
  hand(got) {
    this.handed = got.seq;
    this.handedRaw = got.raw;
    return got.msg;
  }

  // M5: consume the message last handed (under the lock), and only that very message: when
  // tail has passed it, or its file no longer holds the bytes returned (another run of this
  // name took it, it was set aside...), nothing is touched. If this throws, it stays handed.
  acknowledge() {
    const seq = this.handed;
    if (seq === null) return;
    const { tail } = this.counters(this.mine);
    if (tail < seq) {
      let now = null;
      try { now = readBytes(path.join(this.mine, msgName(seq)), this.handedRaw.length); } catch (e) {
        if (!(e instanceof NotAFile)) throw e;
      }
      if (now && now.equals(this.handedRaw)) this.consume(seq);
    }
    this.handed = null;
    this.handedRaw = null;
  }

  consume(seq) {                                                     // M5
    this.writeTail(seq);
    remove(path.join(this.mine, msgName(seq)));
  }

  deliver(to, data) {                                                // M2, M3
    checkName(to, 'recipient');
    this.checkMember();
    const rkey = to.toLowerCase();
    const bad = this.sound(['box', rkey]);
    if (bad === 'missing') return `${to} has not joined this board`;
    if (bad) return `the mailbox of ${to} is ${bad}, not a folder: not used`;
    const rbox = path.join(this.box, rkey);
    let member;
    try { member = readText(path.join(rbox, 'member')); } catch (e) {
      if (e instanceof NotAFile) return `the mailbox of ${to} is damaged (member is ${e.what})`;
      throw e;
    }
    if (member === null) return `${to} has not joined this board`;
    const toRun = fields(member).run;
    if (!toRun || !/^[0-9A-Za-z_-]{1,64}$/.test(toRun)) return `the mailbox of ${to} is damaged`;
    const { head, tail } = this.counters(rbox);
    if (head - tail >= MAX_UNREAD) return `the mailbox of ${to} is full`;
    let k = Math.max(head, tail) + 1;
    while (present(path.join(rbox, msgName(k)))) {
      k++;
      if (k - tail > MAX_UNREAD) return `the mailbox of ${to} is full`;
    }
    if (k > 999999999999) return `the mailbox of ${to} has used up its numbers`;   // M1: 12 digits
    const framed = frame(this.name, this.run, to, toRun, k, data, this.secret);
    const target = path.join(rbox, msgName(k));
    const scratch = writeScratch(this.tmp, framed, true);
    try {
      if (!this.lease.isMine()) {
        throw new LockLost(`lost the board lock before delivering (this process stalled or was stopped for over ${this.lease.staleAfter} s): nothing was sent`);
      }
      // checked again just before the rename (a race stays open: no renameat in Node)
      if (this.sound(['box', rkey])) return `the mailbox of ${to} is not a folder: not used`;
      try { fs.renameSync(scratch, target); } catch (e) {
        let back = null;
        try { back = readBytes(target, MAX_FILE); } catch (err) { back = null; }
        if (!back || !back.equals(framed)) { e.message = `could not deliver to ${to}: ${e.message}`; throw e; }
      }
    } finally { remove(scratch); }
    try { replaceWith(this.tmp, path.join(rbox, 'head'), record(String(k)), false); } catch (e) { /* a hint */ }
    return '';
  }

  maybeWaiting() {                                                   // M6: past the message handed (M5)
    this.maybeBeat();
    if (this.replacedBy) this.checkMember();
    const { head, tail } = this.counters(this.mine);
    const seen = Math.max(tail, this.handed || 0);
    if (present(path.join(this.mine, msgName(seen + 1)))) return true;
    return head > seen;
  }

  talk(to, body) {                                                   // I3
    this.needJoin();
    if (to !== '') checkName(to, 'recipient');
    const data = encodeBody(body);
    let why = '';
    try {
      this.ready();
      if (to === '' && !this.maybeWaiting()) { this.ok(); return [-1, '', '']; }
      const r = this.withLock(() => {
        this.acknowledge();
        const got = this.oldest();
        if (got) { const m = this.hand(got); return [2, m.sender, m.body]; }
        if (to === '') return [-1, '', ''];
        why = this.deliver(to, data);
        return null;
      });
      if (r) { this.ok(); return r; }
    } catch (e) {
      if (e instanceof InvalidArgument) throw e;
      this.failed(e);
      return [0, '', ''];
    }
    if (why) { this.fail(why); return [0, '', '']; }
    this.ok();
    return [1, '', ''];
  }

  send(to, body) {                                                   // I4
    this.needJoin();
    checkName(to, 'recipient');
    const data = encodeBody(body);
    let why;
    try {
      this.ready();
      why = this.withLock(() => this.deliver(to, data));
    } catch (e) {
      if (e instanceof InvalidArgument) throw e;
      this.failed(e);
      return false;
    }
    if (why) { this.fail(why); return false; }
    this.ok();
    return true;
  }

  receive() {                                                        // works on a full disk (T2)
    this.needJoin();
    try {
      this.ready();
      if (!this.maybeWaiting()) { this.ok(); return null; }
      const m = this.withLock(() => {
        this.acknowledge();
        const got = this.oldest();
        return got ? this.hand(got) : null;
      });
      this.ok();
      return m;
    } catch (e) { this.failed(e); return null; }
  }

  // null at once when the board is gone (problem 'gone'); other failures are retried with a
  // pause growing to 2 s (T1)
  wait(timeout) {
    const start = now();
    let failures = 0;
    for (;;) {
      const m = this.receive();
      if (m) return m;
      if (this.problem === 'gone' || this.problem === 'replaced') return null;
      const t = now();
      if (timeout !== undefined && t - start >= timeout) return null;
      let pause = Math.min(1 + (t - start) * 50, 50);
      if (this.problem) pause = Math.min(50 * 2 ** Math.min(++failures, 6), 2000);
      else failures = 0;
      if (timeout !== undefined) pause = Math.min(pause, (start + timeout - t) * 1000);
      sleep(pause);
    }
  }

  quiet() {                                                          // I2
    this.needJoin();
    let dropped = 0;
    this.ready();
    try {
      this.withLock(() => {
        this.acknowledge();
        for (;;) {
          const got = this.oldest();
          if (!got || got.msg.toRun === this.run) return;
          this.consume(got.seq);
          dropped++;
        }
      });
    } catch (e) { if (!(e instanceof Replaced)) throw e; this.failed(e); }
    return dropped;
  }

  wipe() {
    this.needJoin();
    let dropped = 0;
    this.ready();
    try {
      this.withLock(() => { this.acknowledge(); let g; while ((g = this.oldest())) { this.consume(g.seq); dropped++; } });
    } catch (e) { if (!(e instanceof Replaced)) throw e; this.failed(e); }
    return dropped;
  }

  memberRun(name) {                                                  // the run now reading `name`'s mailbox
    checkName(name, 'member');
    const goneNow = () => {
      if (this.gone()) this.failed(Object.assign(new Error(`cannot read the member record of ${name}`), { code: 'ENOENT' }));
      return null;
    };
    if (this.sound(['box', name.toLowerCase()])) return goneNow();
    let t;
    try { t = readText(path.join(this.box, name.toLowerCase(), 'member')); } catch (e) { return goneNow(); }
    return t === null ? goneNow() : (fields(t).run || null);
  }

  // P2: the alive record of `name` (run, beat, state), or null when missing or unreadable just
  // now; a gone board sets problem
  alive(name) {
    checkName(name, 'member');
    const goneNow = () => {
      if (this.gone()) this.failed(Object.assign(new Error(`cannot read the alive record of ${name}`), { code: 'ENOENT' }));
      return null;
    };
    if (this.sound(['box', name.toLowerCase()])) return goneNow();
    let t;
    try { t = readText(path.join(this.box, name.toLowerCase(), 'alive')); } catch (e) { return goneNow(); }
    if (t === null) return goneNow();
    const f = fields(t);
    return { run: f.run || '', beat: f.beat || '', state: f.state || '' };
  }

  // I6: `name`'s current run is known to have ended (its process was on this machine and is gone,
  // or it closed: its alive record no longer names it); false when that cannot be told here
  left(name) {
    checkName(name, 'member');
    const read = (what) => { try { const t = readText(path.join(this.box, name.toLowerCase(), what)); return t === null ? {} : fields(t); } catch (e) { return {}; } };
    const f = read('member');
    const running = pidAlive(f);
    if (running === null) return false;
    return !running || read('alive').run !== f.run;
  }

  beat(state) {                                                      // I6, P2; reports a failure, never clears one
    if (state !== undefined && state !== null) {
      this.state = String(state).slice(0, 64);
      if (this.beater) this.beater.postMessage({ state: this.state });
    }
    if (this.replacedBy) return;
    try {
      this.ready();
      this.writeAlive();
    } catch (e) { this.failed(e, 'cannot write presence'); }
  }
}

module.exports = {
  Board, InvalidArgument, MemberBusy, Replaced, LockTimeout, LockLost, checkName, sleep, now, token, visible, loadSecret, macOf,
  frame, unframe, crc32, VERSION, RESERVED, Damaged, Rejected, NotAFile,
  readBytes, replaceWith, record, fields,
};

// The beating thread of a joined Board (I6): rewrites `alive` every second until its run is no
// longer the one in `member` (replaced) or the Board stops it
if (Worker && !isMainThread && workerData && workerData.cardstandBeat) {
  const w = workerData.cardstandBeat;
  const counter = new Int32Array(w.counter);
  let state = w.state;
  const slot = new SpareSlot(w.spare);
  let spare = null;
  let spareAt = 0;
  parentPort.on('message', (m) => { if (m && typeof m.state === 'string') state = m.state; });
  const timer = setInterval(() => {
    const tok = slot.get();
    if (tok !== spare) [spare, spareAt] = [tok, now()];
    else if (tok !== null && now() - spareAt >= SPARE_REFRESH) { slot.refresh(w.tmp, w.who); spareAt = now(); }
    try {
      const t = readText(path.join(w.mine, 'member'));
      if (t !== null && fields(t).run !== w.run) { clearInterval(timer); parentPort.close(); return; }
      const n = Atomics.add(counter, 0, 1) + 1;
      replaceWith(w.tmp, path.join(w.mine, 'alive'), record(
        `cardstand-alive ${VERSION}\nrun: ${w.run}\nbeat: ${n}\nstate: ${state}`), false);
    } catch (e) { /* a share's passing error, a gone board: no news here */ }
  }, w.every * 1000);
}
