// The keys of a kubernetes.io/tls Secret (and the CA bundle cert-manager adds beside them): the file names a
// mounted certificate Secret has, which topogate writes and the server reloads.

export const certificateFiles = { caCert: 'ca.crt', tlsCert: 'tls.crt', tlsKey: 'tls.key' } as const;
