/** Saves text as a file download. */
export function saveTextFile(text: string, name: string, type = 'text/csv'): void {
  saveBlob(new Blob([text], { type }), name);
}

/** Saves a file download (a Blob URL clicked once, revoked a little later: a big file may take a while to write). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
