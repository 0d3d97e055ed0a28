import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal built on the native <dialog>: focus stays inside, Escape and the close button close it, and the page behind
 * is inert — without a UI library on the public page.
 */
export function Dialog({
  open,
  onClose,
  labelledBy,
  closeLabel,
  children,
  testId,
}: {
  open: boolean;
  onClose: () => void;
  labelledBy: string;
  closeLabel: string;
  children: ReactNode;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="site-dialog"
      aria-labelledby={labelledBy}
      data-testid={testId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose(); // a click on the backdrop
      }}
    >
      <div className="site-dialog-body">
        <button type="button" className="site-dialog-close" aria-label={closeLabel} onClick={onClose}>
          <span aria-hidden="true">✕</span>
        </button>
        {open ? children : null}
      </div>
    </dialog>
  );
}
