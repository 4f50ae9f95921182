import { DEFAULT_CONFIG_PATH, parseAgentArguments, UsageError } from './agent-arguments.js';

describe('corral-agent [--config PATH]', () => {
  it('reads the config from --config, else CORRAL_AGENT_CONFIG, else /etc/corral/agent.json', () => {
    expect(parseAgentArguments(['--config', '/srv/agent.json'], { CORRAL_AGENT_CONFIG: '/env.json' })).toEqual({
      kind: 'run',
      configPath: '/srv/agent.json',
    });
    expect(parseAgentArguments(['--config=/srv/a.json'], {})).toEqual({ kind: 'run', configPath: '/srv/a.json' });
    expect(parseAgentArguments([], { CORRAL_AGENT_CONFIG: '/env.json' })).toEqual({ kind: 'run', configPath: '/env.json' });
    expect(parseAgentArguments([], { CORRAL_AGENT_CONFIG: '' })).toEqual({ kind: 'run', configPath: DEFAULT_CONFIG_PATH });
    expect(DEFAULT_CONFIG_PATH).toBe('/etc/corral/agent.json');
  });

  it('answers --help and -h', () => {
    expect(parseAgentArguments(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseAgentArguments(['-h'], {})).toEqual({ kind: 'help' });
  });

  it.each([
    [['--config'], "Option '--config <value>' argument missing"],
    [['--config='], '--config needs a path'],
    [['--conf', 'x'], "Unknown option '--conf'"],
    [['run'], "Unexpected argument 'run'. This command does not take positional arguments"],
  ])('refuses %j', (argv, message) => {
    expect(() => parseAgentArguments(argv, {})).toThrow(new UsageError(message));
  });
});
