#!/usr/bin/env node
// Independent reference for the circom integration test, in BigInt:
//   node ref.js CIRCUIT.r1cs WITNESS.wtns OUTDIR
// reads both files (sections found by id), checks every constraint
// <A,w>*<B,w> = <C,w> mod r, then changes one aux value (+1) and finds the
// first constraint that fails. Writes OUTDIR/witness.raw (the witness as raw
// 32-byte little-endian values), OUTDIR/tampered.wtns and OUTDIR/tampered.raw,
// and prints one JSON line: constraints, wires, inputs, aux, tampered_wire,
// first_failing_row. Exits 1 with a message when a file is malformed or the
// witness does not satisfy the circuit.
'use strict';
const fs = require('fs');
const path = require('path');

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

function die(msg) {
  process.stderr.write(`ref.js: ${msg}\n`);
  process.exit(1);
}

function sections(buf, magic, file) {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== magic) die(`${file}: not a ${magic} file`);
  const n = buf.readUInt32LE(8);
  const secs = new Map();
  let pos = 12;
  for (let i = 0; i < n; i++) {
    const id = buf.readUInt32LE(pos);
    const size = Number(buf.readBigUInt64LE(pos + 4));
    if (secs.has(id)) die(`${file}: section ${id} twice`);
    secs.set(id, { off: pos + 12, size });
    pos += 12 + size;
  }
  if (pos !== buf.length) die(`${file}: section table does not cover the file`);
  return secs;
}

function fr(buf, off) {
  return buf.readBigUInt64LE(off) | (buf.readBigUInt64LE(off + 8) << 64n) |
    (buf.readBigUInt64LE(off + 16) << 128n) | (buf.readBigUInt64LE(off + 24) << 192n);
}

function frBytes(v) {
  const b = Buffer.alloc(32);
  for (let i = 0; i < 4; i++) b.writeBigUInt64LE((v >> BigInt(64 * i)) & 0xffffffffffffffffn, 8 * i);
  return b;
}

function readR1cs(file) {
  const buf = fs.readFileSync(file);
  const secs = sections(buf, 'r1cs', file);
  const h = secs.get(1);
  if (!h || buf.readUInt32LE(h.off) !== 32 || fr(buf, h.off + 4) !== R) die(`${file}: not over BLS12-381 r`);
  let p = h.off + 36;
  const nWires = buf.readUInt32LE(p);
  const nPubOut = buf.readUInt32LE(p + 4);
  const nPubIn = buf.readUInt32LE(p + 8);
  const m = buf.readUInt32LE(p + 24);
  const c = secs.get(2);
  p = c.off;
  const rows = [];
  for (let i = 0; i < m; i++) {
    const lcs = [];
    for (let k = 0; k < 3; k++) {
      const n = buf.readUInt32LE(p);
      p += 4;
      const lc = [];
      for (let j = 0; j < n; j++, p += 36) lc.push([buf.readUInt32LE(p), fr(buf, p + 4)]);
      lcs.push(lc);
    }
    rows.push(lcs);
  }
  if (p !== c.off + c.size) die(`${file}: constraints section size`);
  return { nWires, nInputs: 1 + nPubOut + nPubIn, rows };
}

function readWtns(file) {
  const buf = fs.readFileSync(file);
  const secs = sections(buf, 'wtns', file);
  const h = secs.get(1);
  if (buf.readUInt32LE(h.off) !== 32 || fr(buf, h.off + 4) !== R) die(`${file}: not over BLS12-381 r`);
  const n = buf.readUInt32LE(h.off + 36);
  const v = secs.get(2);
  const w = [];
  for (let i = 0; i < n; i++) w.push(fr(buf, v.off + 32 * i));
  return { buf, w, valuesOff: v.off };
}

function dot(lc, w) {
  let s = 0n;
  for (const [wire, coef] of lc) s += coef * w[wire];
  return s % R;
}

function firstFailure(rows, w) {
  for (let i = 0; i < rows.length; i++) {
    const [a, b, c] = rows[i];
    if ((dot(a, w) * dot(b, w) - dot(c, w)) % R !== 0n) return i;
  }
  return -1;
}

const [r1csFile, wtnsFile, outDir] = process.argv.slice(2);
if (!outDir) die('usage: ref.js CIRCUIT.r1cs WITNESS.wtns OUTDIR');
const cs = readR1cs(r1csFile);
const wt = readWtns(wtnsFile);
const w = wt.w;
if (w.length !== cs.nWires) die(`witness has ${w.length} values, circuit ${cs.nWires} wires`);
if (w[0] !== 1n) die('witness value 0 is not 1');
const bad = firstFailure(cs.rows, w);
if (bad >= 0) die(`the witness fails constraint ${bad}`);
fs.writeFileSync(path.join(outDir, 'witness.raw'), Buffer.concat(w.map(frBytes)));

// Tamper with the aux wire in the middle, or the next one that some
// constraint notices.
const nAux = cs.nWires - cs.nInputs;
let wire = -1;
let row = -1;
for (let t = 0; t < nAux && row < 0; t++) {
  wire = cs.nInputs + ((Math.floor(nAux / 2) + t) % nAux);
  const keep = w[wire];
  w[wire] = (keep + 1n) % R;
  row = firstFailure(cs.rows, w);
  if (row < 0) w[wire] = keep;
}
if (row < 0) die('no aux value change breaks any constraint');
const tampered = Buffer.from(wt.buf);
frBytes(w[wire]).copy(tampered, wt.valuesOff + 32 * wire);
fs.writeFileSync(path.join(outDir, 'tampered.wtns'), tampered);
fs.writeFileSync(path.join(outDir, 'tampered.raw'), Buffer.concat(w.map(frBytes)));
process.stdout.write(JSON.stringify({
  constraints: cs.rows.length, wires: cs.nWires, inputs: cs.nInputs, aux: nAux,
  tampered_wire: wire, first_failing_row: row,
}) + '\n');
