import { Center, Image, Loader } from '@mantine/core';
import { useEffect, useState } from 'react';

/**
 * A QR code drawn in the browser (the `qrcode` library, loaded only when a code is shown): the otpauth:// URL never
 * leaves the page for an image service.
 */
export function QrCode({ value, alt, size = 200 }: { value: string; alt: string; size?: number }) {
  // The image drawn for a value; a new value shows the loader until its own image is drawn.
  const [drawn, setDrawn] = useState<{ key: string; src: string } | null>(null);
  const key = `${size}:${value}`;
  const src = drawn?.key === key ? drawn.src : null;
  useEffect(() => {
    let live = true;
    void import('qrcode').then(async (QR) => {
      const url = await QR.toDataURL(value, { margin: 1, width: size, errorCorrectionLevel: 'M' });
      if (live) setDrawn({ key: `${size}:${value}`, src: url });
    });
    return () => {
      live = false;
    };
  }, [value, size]);
  if (!src)
    return (
      <Center w={size} h={size}>
        <Loader size="sm" />
      </Center>
    );
  return <Image src={src} alt={alt} w={size} h={size} fit="contain" bg="white" radius="sm" data-testid="totp-qr" />;
}
