'use strict';
// make check-browser: node tests/browser/run.js BUILD_DIR
// Runs the embedded-page tests (test_view.js), the served-mode tests
// (test_serve.js) and those of files opened in a page (test_open.js) in one
// headless Chromium; prints "ok - ..." /
// "not ok - ..." and the summary "N passed, N failed, N skipped", writes the
// same and the details to BUILD_DIR/check-browser.log and the screenshots to
// BUILD_DIR/screenshots/; exits 1 when a check failed or none ran.
// BROWSER_ONLY=REGEX runs the files whose label matches (while developing).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Harness } = require('./lib');

async function main() {
    const build = process.argv[2] || 'build';
    // the tests name the shipped files relative to the top of the tree
    process.chdir(path.join(__dirname, '..', '..'));
    const h = new Harness(build);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-view-pages-'));
    let ok = false;
    try {
        await h.launch();
        for (const t of ['./test_view', './test_serve', './test_open']) {
            try {
                await require(t).run(h, dir);
            } catch (e) {
                h.fail(`${t}: ran to its end`, e);
            }
        }
    } catch (e) {
        h.fail('headless Chromium starts', e);
    } finally {
        await h.close();
        fs.rmSync(dir, { recursive: true, force: true });
        ok = h.summary();
    }
    process.exit(ok ? 0 : 1);
}

main();
