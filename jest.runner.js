'use strict';
/**
 * jest's own runner, with one difference: the suites of the `serial` project (jest.config.js) run
 * one after another in a worker of their own, while the other projects' suites share maxWorkers
 * workers. jest alone runs each runner's suites either all in parallel or all in band.
 * With --runInBand (or when jest decides to run in band, e.g. for one file) everything runs in
 * band, the serial suites last.
 */
const TestRunner = require('jest-runner').default;

const isSerial = (test) => test.context.config.displayName?.name === 'serial';

/**
 * Last in the serial lane: the stopping suite runs `npm start`, which builds the panel again, and
 * takes the built-panel lock for it, waiting for the suites serving the panel. Those run early
 * (jest starts the slowest suites first), so by then they are done and nothing waits.
 */
const BUILDS_THE_PANEL = /\/test\/faults\/stopping\.test\.ts$/;
const buildsLast = (tests) => [...tests.filter((t) => !BUILDS_THE_PANEL.test(t.path)), ...tests.filter((t) => BUILDS_THE_PANEL.test(t.path))];

class PropDeskRunner extends TestRunner {
  #serialRunner;

  constructor(globalConfig, context) {
    super(globalConfig, context);
    this.#serialRunner = new TestRunner({ ...globalConfig, maxWorkers: 1 }, context);
  }

  async runTests(tests, watcher, options) {
    const serial = buildsLast(tests.filter(isSerial));
    const parallel = tests.filter((test) => !isSerial(test));
    if (options.serial) {
      if (parallel.length > 0) await super.runTests(parallel, watcher, options);
      if (serial.length > 0) await this.#serialRunner.runTests(serial, watcher, options);
      return;
    }
    await Promise.all([
      parallel.length > 0 ? super.runTests(parallel, watcher, options) : undefined,
      // A pool of one worker: one suite at a time, in sequence.
      serial.length > 0 ? this.#serialRunner.runTests(serial, watcher, { serial: false }) : undefined,
    ]);
  }

  /** jest listens for results on this runner: both pools report to it. */
  on(eventName, listener) {
    const offParallel = super.on(eventName, listener);
    const offSerial = this.#serialRunner.on(eventName, listener);
    return () => {
      offParallel();
      offSerial();
    };
  }
}

module.exports = PropDeskRunner;
