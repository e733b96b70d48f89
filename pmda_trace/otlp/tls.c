/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TLS for the OTLP listeners: see tls.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls.h"

#define RECORD_MAX	16384	/* plaintext bytes of one TLS record */

struct otlp_tls {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	char *cert, *key, *ca;	/* PEM texts; ca NULL: no client certificates */
};

struct otlp_tls_conn {
	gnutls_session_t s;
	size_t sealed;		/* bytes of the send that returned EAGAIN */
};

/* The whole of @path (at most OTLP_TLS_FILE_MAX bytes), NUL-terminated. */
static char *slurp(const char *path, char *why, size_t cap)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > OTLP_TLS_FILE_MAX) {
		snprintf(why, cap, "%s: not a regular file of at most %d bytes", path,
			 OTLP_TLS_FILE_MAX);
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		snprintf(why, cap, "%s: no memory", path);
		goto out;
	}
	while ((size_t)n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - (size_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(why, cap, "%s: %s", path, r < 0 ? strerror(errno) : "shorter than it was");
			free(buf);
			buf = NULL;
			goto out;
		}
		n += r;
	}
	buf[n] = '\0';
out:
	close(fd);
	return buf;
}

void otlp_tls_free(struct otlp_tls *t)
{
	if (t == NULL)
		return;
	if (t->cred)
		gnutls_certificate_free_credentials(t->cred);
	if (t->prio)
		gnutls_priority_deinit(t->prio);
	free(t->cert);
	free(t->key);
	free(t->ca);
	free(t);
}

int otlp_tls_load(const char *cert, const char *key, const char *ca,
		  struct otlp_tls **out, char *why, size_t cap)
{
	struct otlp_tls *t = calloc(1, sizeof(*t));
	gnutls_datum_t c, k, a;
	const char *where;
	int r;

	*out = NULL;
	if (t == NULL) {
		snprintf(why, cap, "no memory");
		return -1;
	}
	if ((t->cert = slurp(cert, why, cap)) == NULL ||
	    (t->key = slurp(key, why, cap)) == NULL ||
	    (ca != NULL && (t->ca = slurp(ca, why, cap)) == NULL))
		goto fail;
	if ((r = gnutls_certificate_allocate_credentials(&t->cred)) < 0) {
		snprintf(why, cap, "GnuTLS: %s", gnutls_strerror(r));
		goto fail;
	}
	c = (gnutls_datum_t){ (unsigned char *)t->cert, (unsigned)strlen(t->cert) };
	k = (gnutls_datum_t){ (unsigned char *)t->key, (unsigned)strlen(t->key) };
	/* checks that the key is the certificate's */
	if ((r = gnutls_certificate_set_x509_key_mem2(t->cred, &c, &k, GNUTLS_X509_FMT_PEM,
						      NULL, 0)) < 0) {
		snprintf(why, cap, "%s and %s: %s", cert, key, gnutls_strerror(r));
		goto fail;
	}
	if (t->ca != NULL) {
		a = (gnutls_datum_t){ (unsigned char *)t->ca, (unsigned)strlen(t->ca) };
		r = gnutls_certificate_set_x509_trust_mem(t->cred, &a, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			snprintf(why, cap, "%s: %s", ca, r < 0 ? gnutls_strerror(r) :
				 "no certificate in it");
			goto fail;
		}
	}
	if ((r = gnutls_priority_init(&t->prio, OTLP_TLS_PRIORITIES, &where)) < 0) {
		snprintf(why, cap, "GnuTLS priorities at '%s': %s", where, gnutls_strerror(r));
		goto fail;
	}
	*out = t;
	return 0;
fail:
	otlp_tls_free(t);
	return -1;
}

const char *otlp_tls_cert_pem(const struct otlp_tls *t)
{
	return t->cert;
}

const char *otlp_tls_key_pem(const struct otlp_tls *t)
{
	return t->key;
}

const char *otlp_tls_ca_pem(const struct otlp_tls *t)
{
	return t->ca;
}

int otlp_tls_peer_ok(const struct otlp_tls *t, void *session)
{
	gnutls_session_t s = session;
	unsigned int status = 0, n = 0;

	if (t->ca == NULL)
		return 1;
	if (s == NULL || gnutls_certificate_get_peers(s, &n) == NULL || n == 0)
		return 0;
	return gnutls_certificate_verify_peers2(s, &status) == 0 && status == 0;
}

struct otlp_tls_conn *otlp_tls_conn_new(const struct otlp_tls *t, int fd)
{
	static const gnutls_datum_t h2 = { (unsigned char *)"h2", 2 };
	struct otlp_tls_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	if (gnutls_init(&c->s, GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL) < 0) {
		free(c);
		return NULL;
	}
	if (gnutls_priority_set(c->s, t->prio) < 0 ||
	    gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, t->cred) < 0 ||
	    gnutls_alpn_set_protocols(c->s, &h2, 1, GNUTLS_ALPN_MANDATORY) < 0) {
		otlp_tls_conn_free(c);
		return NULL;
	}
	if (t->ca != NULL) {
		/* the handshake itself fails without a certificate the CA signed */
		gnutls_certificate_server_set_request(c->s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_cert(c->s, NULL, 0);
	}
	gnutls_transport_set_int(c->s, fd);
	return c;
}

void otlp_tls_conn_free(struct otlp_tls_conn *c)
{
	if (c == NULL)
		return;
	gnutls_deinit(c->s);
	free(c);
}

int otlp_tls_handshake(struct otlp_tls_conn *c, const char **why)
{
	gnutls_datum_t p;
	int r;

	do
		r = gnutls_handshake(c->s);
	while (r < 0 && !gnutls_error_is_fatal(r) && r != GNUTLS_E_AGAIN);
	if (r == GNUTLS_E_AGAIN)
		return 0;
	if (r < 0) {
		*why = gnutls_strerror(r);
		return -1;
	}
	/* ALPN is mandatory: a client that offered none is not refused by it */
	if (gnutls_alpn_get_selected_protocol(c->s, &p) < 0 || p.size != 2 ||
	    memcmp(p.data, "h2", 2) != 0) {
		*why = "the client did not offer ALPN h2";
		return -1;
	}
	return 1;
}

int otlp_tls_want_write(const struct otlp_tls_conn *c)
{
	return c->sealed > 0 || gnutls_record_get_direction(c->s) == 1;
}

ssize_t otlp_tls_recv(struct otlp_tls_conn *c, void *buf, size_t len, const char **why)
{
	ssize_t r;

	do
		r = gnutls_record_recv(c->s, buf, len);
	while (r == GNUTLS_E_INTERRUPTED);
	if (r >= 0)
		return r;
	if (r == GNUTLS_E_AGAIN) {
		errno = EAGAIN;
		return -1;
	}
	if (r == GNUTLS_E_PREMATURE_TERMINATION)
		return 0;	/* a close without close_notify, as most clients do */
	*why = gnutls_strerror((int)r);
	errno = EPROTO;
	return -1;
}

size_t otlp_tls_pending(struct otlp_tls_conn *c)
{
	return gnutls_record_check_pending(c->s);
}

ssize_t otlp_tls_send(struct otlp_tls_conn *c, const void *buf, size_t len, const char **why)
{
	ssize_t r;

	if (c->sealed > 0) {	/* the record sealed last time goes first */
		do
			r = gnutls_record_send(c->s, NULL, 0);
		while (r == GNUTLS_E_INTERRUPTED);
	} else {
		if (len > RECORD_MAX)
			len = RECORD_MAX;
		do
			r = gnutls_record_send(c->s, buf, len);
		while (r == GNUTLS_E_INTERRUPTED);
		if (r == GNUTLS_E_AGAIN)
			c->sealed = len;
	}
	if (r == GNUTLS_E_AGAIN) {
		errno = EAGAIN;
		return -1;
	}
	if (r < 0) {
		*why = gnutls_strerror((int)r);
		errno = EPROTO;
		return -1;
	}
	if (c->sealed > 0) {
		r = (ssize_t)c->sealed;
		c->sealed = 0;
	}
	return r;
}
