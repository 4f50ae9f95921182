import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';

const KEY = 'corral.theme';
/** PatternFly's dark theme is a class on the document's root element. */
const DARK_CLASS = 'pf-v6-theme-dark';

function initial(): Theme {
  const stored = localStorage.getItem(KEY);
  if (stored === 'light' || stored === 'dark') return stored;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The theme the user chose (kept in this browser), else the system's. */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState(initial);
  useEffect(() => {
    document.documentElement.classList.toggle(DARK_CLASS, theme === 'dark');
  }, [theme]);
  return [
    theme,
    (chosen) => {
      localStorage.setItem(KEY, chosen);
      setTheme(chosen);
    },
  ];
}
