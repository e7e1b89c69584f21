/** The kit's test-controlled TCP proxy (one copy for every suite). */
export { startTcpProxy, type TcpProxy } from '@propdesk/kit';
