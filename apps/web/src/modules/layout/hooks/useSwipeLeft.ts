import { useRef, type TouchEvent } from 'react';

/** §2.2: the mobile menu closes on a swipe to the left (more than 60 px). */
export function useSwipeLeft(onSwipeLeft: () => void, threshold = 60) {
  const startX = useRef<number | null>(null);
  return {
    onTouchStart: (event: TouchEvent) => {
      startX.current = event.touches[0]?.clientX ?? null;
    },
    onTouchEnd: (event: TouchEvent) => {
      const endX = event.changedTouches[0]?.clientX;
      const from = startX.current;
      startX.current = null;
      if (from === null || endX === undefined) return;
      if (endX - from < -threshold) onSwipeLeft();
    },
  };
}
