/** What a page says when it has nothing to show (EmptyState) or something failed (ErrorBox: an alert). */
import type { ComponentChildren } from 'preact';

export function EmptyState({ children, testId }: { children: ComponentChildren; testId?: string }) {
  return (
    <p class="empty-state muted" data-testid={testId}>
      {children}
    </p>
  );
}

export function ErrorBox({ children, testId }: { children: ComponentChildren; testId?: string }) {
  return (
    <div class="error" role="alert" data-testid={testId}>
      {children}
    </div>
  );
}
