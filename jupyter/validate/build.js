#!/usr/bin/env node
/*
 * Build the extension into ../labextensions/ml-foundations-validate/, the prebuilt extension
 * that `make lab` and the hub load (committed: students need no Node.js).
 *
 *   npm ci && npm run build        (or: make labextension, from the course folder)
 *
 * It is @jupyter/builder's build (as `jupyter-builder build` runs it) against the JupyterLab of
 * the course's environment: that JupyterLab's staging/package.json says which packages its core
 * shares with extensions, and at which versions. Set JUPYTERLAB_CORE_PACKAGE to that file, or
 * COURSE_PYTHON to the Python whose jupyterlab to read it from (default: ../../.venv/bin/python).
 *
 * Two differences from the builder's defaults make the output the same wherever the course is
 * cloned: module and chunk ids are numbered in order (natural) instead of hashed from module
 * names that hold the folder's absolute path. Last, course-build.json records a digest of the
 * sources and the JupyterLab version built against; tests/test_validate_service.py compares it
 * with the sources (fast) and rebuilds to compare byte for byte (slow, needs npm).
 */
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const builder = path.dirname(require.resolve('@jupyter/builder/package.json'));
const generateConfig = require(path.join(builder, 'lib', 'extensionConfig')).default;
const { rspack } = require(require.resolve('@rspack/core', { paths: [builder] }));

const HERE = __dirname;
// What the digest covers: every file the build reads from this folder.
const SOURCES = ['package.json', 'package-lock.json', 'build.js', 'src', 'style'];

function corePackageFile() {
  if (process.env.JUPYTERLAB_CORE_PACKAGE) {
    return path.resolve(process.env.JUPYTERLAB_CORE_PACKAGE);
  }
  const python = process.env.COURSE_PYTHON || path.resolve(HERE, '..', '..', '.venv', 'bin', 'python');
  const code =
    'import os, jupyterlab; print(os.path.join(os.path.dirname(jupyterlab.__file__), "staging", "package.json"))';
  return execFileSync(python, ['-c', code], { encoding: 'utf8' }).trim();
}

function filesUnder(relative) {
  const full = path.join(HERE, relative);
  if (fs.statSync(full).isDirectory()) {
    return fs
      .readdirSync(full)
      .flatMap(name => filesUnder(path.posix.join(relative, name)));
  }
  return [relative];
}

/** sha256 over the sources: for each file, sorted by path, its path, a NUL, its bytes, a NUL. */
function sourceDigest() {
  const hash = crypto.createHash('sha256');
  const files = SOURCES.flatMap(filesUnder).sort();
  for (const file of files) {
    hash.update(file + '\0');
    hash.update(fs.readFileSync(path.join(HERE, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const core = corePackageFile();
const coreVersion = JSON.parse(fs.readFileSync(core, 'utf8')).version;
const configs = generateConfig({ packagePath: HERE, corePackageFile: core, mode: 'production' });
for (const config of configs) {
  config.optimization = { ...(config.optimization || {}), moduleIds: 'natural', chunkIds: 'natural' };
}
const outDir = path.resolve(HERE, require('./package.json').jupyterlab.outputDir);

rspack(configs).run((err, stats) => {
  if (err) {
    console.error(err.stack || err);
    process.exit(1);
  }
  if (stats.hasErrors()) {
    console.error(stats.toString({ all: false, errors: true }));
    process.exit(2);
  }
  const record = { sources: sourceDigest(), jupyterlab: coreVersion };
  fs.writeFileSync(path.join(outDir, 'course-build.json'), JSON.stringify(record, null, 2) + '\n');
  console.log(`built ${path.relative(process.cwd(), outDir) || '.'} against JupyterLab ${coreVersion}`);
});
