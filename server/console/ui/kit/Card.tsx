/** A card: a section with a heading that names it (`title`, its id `titleId`), or a plain box without one. */
import type { ComponentChildren } from 'preact';

export function Card({
  title,
  titleId,
  level = 2,
  extraClass,
  testId,
  children,
}: {
  title?: ComponentChildren;
  titleId?: string;
  level?: 2 | 3;
  extraClass?: string;
  testId?: string;
  children: ComponentChildren;
}) {
  const cls = extraClass ? `card ${extraClass}` : 'card';
  if (title === undefined) {
    return (
      <div class={cls} data-testid={testId}>
        {children}
      </div>
    );
  }
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section class={cls} aria-labelledby={titleId} data-testid={testId}>
      <Heading id={titleId}>{title}</Heading>
      {children}
    </section>
  );
}
