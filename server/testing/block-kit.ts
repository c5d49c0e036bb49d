/**
 * What Slack accepts from an incoming webhook, checked at run time on a body a test receiver got (the
 * builder is typed against @slack/types at compile time; this checks the JSON that went over the wire):
 * the block types we send, their text objects and Slack's documented limits. Returns the problems found.
 */
import type { KnownBlock } from '@slack/types';

const TEXT_TYPES = new Set(['plain_text', 'mrkdwn']);

function textProblems(where: string, text: unknown, max: number, types = TEXT_TYPES): string[] {
  const t = text as { type?: unknown; text?: unknown } | null;
  if (!t || typeof t !== 'object') return [`${where}: no text object`];
  const problems: string[] = [];
  if (!types.has(t.type as string)) problems.push(`${where}: text type ${String(t.type)}`);
  if (typeof t.text !== 'string' || t.text.length < 1 || t.text.length > max)
    problems.push(`${where}: text of ${String((t.text as string)?.length)} characters (1–${max})`);
  return problems;
}

export function blockKitProblems(body: unknown): string[] {
  const message = body as { text?: unknown; blocks?: unknown };
  const problems: string[] = [];
  if (typeof message?.text !== 'string' || message.text.length === 0) problems.push('message: no fallback `text`');
  if (!Array.isArray(message?.blocks) || message.blocks.length === 0 || message.blocks.length > 50) return [...problems, 'message: 1–50 blocks'];
  (message.blocks as KnownBlock[]).forEach((block, i) => {
    const where = `blocks[${i}] (${block.type})`;
    switch (block.type) {
      case 'header':
        problems.push(...textProblems(where, block.text, 150, new Set(['plain_text'])));
        break;
      case 'section':
        if (block.text) problems.push(...textProblems(where, block.text, 3000));
        if (block.fields) {
          if (block.fields.length > 10) problems.push(`${where}: more than 10 fields`);
          for (const [j, f] of block.fields.entries()) problems.push(...textProblems(`${where}.fields[${j}]`, f, 2000));
        }
        if (!block.text && !block.fields) problems.push(`${where}: neither text nor fields`);
        break;
      case 'context':
        if (block.elements.length < 1 || block.elements.length > 10) problems.push(`${where}: 1–10 elements`);
        for (const [j, e] of block.elements.entries()) problems.push(...textProblems(`${where}.elements[${j}]`, e, 3000));
        break;
      case 'divider':
        break;
      default:
        problems.push(`${where}: a block type this product does not send`);
    }
  });
  return problems;
}
