// The part of noVNC's RFB client the console uses (the package ships no types).
declare module '@novnc/novnc' {
  export default class RFB extends EventTarget {
    constructor(target: HTMLElement, url: string, options?: { readonly wsProtocols?: readonly string[]; readonly shared?: boolean });
    scaleViewport: boolean;
    resizeSession: boolean;
    background: string;
    disconnect(): void;
    sendCtrlAltDel(): void;
    focus(): void;
  }
}
