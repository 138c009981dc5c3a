#!/usr/bin/env node
// Regenerate samples/hello.wav: a small, deterministic, spoken-like recording for the demo and the docs
// (`notevox voice upload samples/hello.wav`). Syllable-shaped tone bursts (see test/helpers/audio.ts)
// in three phrases, "hel-lo", "from no-te-vox", "sand-box", separated by pauses. 8 kHz, 16-bit mono.
// Usage: node scripts/make-sample.mjs [output path]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? join(root, 'samples', 'hello.wav');
const audio = await tsImport('../test/helpers/audio.ts', import.meta.url);

const { bytes, phrase } = audio.speechLikeWav(
  { words: [[170, 230], [150, 120, 140, 210], [190, 260]], leadMs: 350, pauseMs: 550, tailMs: 450 },
  { sampleRate: 8000, amplitude: 0.5, seed: 2026 },
);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, bytes);
const spans = phrase.words.map((w) => `${(w.startMs / 1000).toFixed(2)}–${(w.endMs / 1000).toFixed(2)} s`).join(', ');
console.log(`wrote ${out}: ${bytes.length} bytes, ${(phrase.durationMs / 1000).toFixed(2)} s, speech at ${spans}`);
