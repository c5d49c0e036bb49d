/**
 * The console's components: every page builds its forms, buttons, chips, cards, tables, empty states and
 * errors from these, so they look and behave alike (labels tied to controls, visible focus, AA contrast:
 * console.css).
 */
export { Button, type ButtonVariant } from './Button.tsx';
export { Card } from './Card.tsx';
export { type ChipItem, Chips } from './Chips.tsx';
export { EmptyState, ErrorBox } from './Feedback.tsx';
export { Checkbox, Field, FileInput, Radio, Select, TextArea, TextInput } from './Field.tsx';
export { Table } from './Table.tsx';
