import { isbot } from 'isbot';
import { describe, expect, it } from 'vitest';
import { isBotAgent } from './bot-agent.ts';

describe('isBotAgent', () => {
  it('answers as isbot, from memory on repeats, and no User-Agent is no bot', () => {
    const agents = [
      'Googlebot/2.1',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'curl/8.5.0',
      'x'.repeat(600),
    ];
    for (let round = 0; round < 2; round++) for (const ua of agents) expect(isBotAgent(ua)).toBe(isbot(ua));
    expect(isBotAgent(undefined)).toBe(false);
    expect(isBotAgent('  ')).toBe(false);
  });

  it('stays right past its bound', () => {
    for (let i = 0; i < 12_000; i++)
      expect(isBotAgent(i % 2 ? `Mozilla/5.0 agent-${i}` : `crawler-${i}bot/1.0`)).toBe(isbot(i % 2 ? `Mozilla/5.0 agent-${i}` : `crawler-${i}bot/1.0`));
  });
});
