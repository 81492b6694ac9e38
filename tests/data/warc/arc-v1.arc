filedesc://fixture.arc 0.0.0.0 20240102030405 text/plain 76
1 0 trawl fixtures
URL IP-address Archive-date Content-type Archive-length


http://example.com/1 192.0.2.1 20240102030401 text/html 64
HTTP/1.0 200 OK
Content-Type: text/html

<p>arc record 1</p>

http://example.com/2 192.0.2.2 20240102030402 text/dns 34
plain dns-ish answer for record 2

http://example.com/3 192.0.2.3 20240102030403 text/html 64
HTTP/1.0 200 OK
Content-Type: text/html

<p>arc record 3</p>

