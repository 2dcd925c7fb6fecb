process.env.TEMPMAIL_TEST_KIND = 'embedded';
