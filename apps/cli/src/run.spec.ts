import { run } from './run.js';

async function runCli(argv: string[], env: Record<string, string> = {}) {
  const output = { out: '', err: '' };
  const code = await run(argv, env, { out: (text) => void (output.out += text), err: (text) => void (output.err += text) }, () => {
    throw new Error('no agent in these tests');
  });
  return { code, ...output };
}

// Only what ends before a request: the e2e suite (test/e2e/cli.e2e-spec.ts) runs the rest against a control plane.
describe('corral, before it sends anything', () => {
  it('prints help on stdout and exits 0', async () => {
    const { code, out, err } = await runCli(['--help']);
    expect([code, err]).toEqual([0, '']);
    expect(out).toMatch(/^Usage: corral <command>/);
  });

  it('exits 2 on a usage error, the message and a hint on stderr, nothing on stdout', async () => {
    expect(await runCli(['token', 'create', 'root@pam', 'ci', '--expire', 'soon'])).toEqual({
      code: 2,
      out: '',
      err: "corral: token create: --expire: 'soon' is not a date YYYY-MM-DD\nRun 'corral token create --help' for its usage.\n",
    });
  });

  it('exits 2 on a bad environment without printing the secrets in it', async () => {
    const { code, err } = await runCli(['token', 'list', 'root@pam'], {
      CORRAL_TOKEN: 'root@pam!ci=hunter2 x',
      CORRAL_PASSWORD: 'hunter3',
    });
    expect(code).toBe(2);
    expect(err).toBe("corral: CORRAL_USER and CORRAL_PASSWORD go together\nRun 'corral --help' for the commands.\n");
  });
});
