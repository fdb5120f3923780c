import { describe, expect, it } from '@jest/globals';
import { readSimulatorArgs, SIMULATOR_USAGE } from '../scripts/simulator-args.js';

// `npm run simulator`'s arguments (issue 44, item 20: it ignored --help and started anyway).
describe('npm run simulator -- …', () => {
  it('--help prints the usage on stdout and starts nothing', () => {
    for (const help of ['--help', '-h'])
      expect(readSimulatorArgs([help])).toEqual({
        exitCode: 0,
        stream: 'stdout',
        text: SIMULATOR_USAGE
      });
    expect(SIMULATOR_USAGE).toMatch(/--port PORT[\s\S]*--database/);
  });

  it('an unknown flag or a wrong port is a usage error on stderr, exit 2', () => {
    expect(readSimulatorArgs(['--databse'])).toMatchObject({ exitCode: 2, stream: 'stderr' });
    expect(readSimulatorArgs(['--port', 'x'])).toMatchObject({
      exitCode: 2,
      text: expect.stringMatching(/^--port x: not a port number/)
    });
  });

  it('reads the port and --database', () => {
    expect(readSimulatorArgs([])).toEqual({ port: 0, database: false });
    expect(readSimulatorArgs(['--port', '4010', '--database'])).toEqual({
      port: 4010,
      database: true
    });
  });
});
